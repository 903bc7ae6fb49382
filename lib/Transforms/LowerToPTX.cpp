//===- LowerToPTX.cpp - Bufferize, outline and serialise kernels ----------===//
//
// Takes scheduled IR (dispatches hold gpu.launch ops) to host code with
// gpu.launch_func and one gpu.binary of PTX per dispatch.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Target/TargetInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMLOWERTOPTXPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Kernel outlining, once the launch bodies are final.
constexpr llvm::StringLiteral kOutlineKernelsPipeline =
    "func.func(gpu-launch-sink-index-computations),gpu-kernel-outlining";

/// Device-side lowering to NVVM and serialisation to PTX.
std::string devicePipeline(const TargetInfo &target, unsigned optLevel) {
  // Vector transfers are lowered only here, after the module-wide
  // bufferization folded the boundary casts into static layouts; lowering
  // them earlier gives scalar loads. nvgpu ops (ldmatrix, cp.async, TMA,
  // mbarriers, wgmma) from tensor-core scripts become NVVM first, while
  // loops are still scf: the warpgroup accumulators they carry are
  // converted with them. Vector ops go
  // through convert-gpu-to-nvvm, which maps the workgroup address space of
  // shared-memory stores; what remains after it is lowered last.
  return llvm::formatv(
      "nvvm-attach-target{{chip={0} features={1} O={2}},"
      "gpu.module(convert-linalg-to-loops,vibegemm-widen-float8,"
      "convert-nvgpu-to-nvvm,"
      "convert-vector-to-scf{{full-unroll=true target-rank=1},lower-affine,"
      "convert-scf-to-cf,canonicalize,expand-strided-metadata,lower-affine,"
      "convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv=true},"
      "convert-vector-to-llvm,convert-arith-to-llvm,convert-nvvm-to-llvm,"
      "canonicalize,cse,"
      "reconcile-unrealized-casts)",
      target.chip, target.features, optLevel);
}

/// Serialisation of the lowered gpu.modules to PTX.
constexpr llvm::StringLiteral kSerialisePipeline =
    "gpu-module-to-binary{format=isa},symbol-dce";

/// convert-gpu-to-nvvm gives `gpu.dynamic_shared_memory` an internal
/// zero-length global, which the NVPTX backend demotes into the kernel as a
/// 1-byte static `.shared` variable. ptxas then lays it out among the other
/// static variables in declaration order: first, before the mbarriers, so
/// the dynamic region would start on top of them. External linkage makes it
/// CUDA's `extern __shared__` array (`.extern .shared ... []`), which ptxas
/// places after every static variable.
void externDynamicSharedMemory(ModuleOp module) {
  module.walk([](LLVM::GlobalOp global) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (global.getAddrSpace() == NVVM::NVVMMemorySpace::Shared &&
        array && array.getNumElements() == 0 && !global.getValueOrNull())
      global.setLinkage(LLVM::Linkage::External);
  });
}

/// Moves the kernels of each dispatch into one gpu.module named
/// `<dispatch>_kernels`, so a dispatch ships as one PTX file.
LogicalResult mergeKernelsPerDispatch(ModuleOp module) {
  SymbolTable symbols(module);
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<gpu::LaunchFuncOp> launches;
    func.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    if (launches.empty())
      continue;
    OpBuilder builder(func);
    builder.setInsertionPointAfter(func);
    std::string name = (func.getSymName() + "_kernels").str();
    auto merged = gpu::GPUModuleOp::create(builder, func.getLoc(), name);
    symbols.insert(merged);
    for (auto [i, launch] : llvm::enumerate(launches)) {
      auto oldModule =
          symbols.lookup<gpu::GPUModuleOp>(launch.getKernelModuleName());
      if (!oldModule)
        return emitError(launch.getLoc(), "kernel module not found");
      auto kernel =
          oldModule.lookupSymbol<gpu::GPUFuncOp>(launch.getKernelName());
      std::string kernelName =
          (func.getSymName() + "_kernel_" + Twine(i)).str();
      kernel.setName(kernelName);
      // Shared-memory globals and other symbols the kernel uses come along;
      // a clashing name is renamed in the kernel first.
      SymbolTable mergedSymbols(merged);
      for (Operation &op : llvm::make_early_inc_range(
               oldModule.getBody()->without_terminator())) {
        auto name =
            op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
        if (name && &op != kernel.getOperation() &&
            mergedSymbols.lookup(name)) {
          auto fresh =
              builder.getStringAttr((name.getValue() + "_k" + Twine(i)).str());
          if (failed(SymbolTable::replaceAllSymbolUses(name, fresh, kernel)))
            return emitError(kernel.getLoc(), "cannot rename symbol ") << name;
          SymbolTable::setSymbolName(&op, fresh);
        }
        op.moveBefore(merged.getBody(), std::prev(merged.getBody()->end()));
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          builder.getStringAttr(name),
          {FlatSymbolRefAttr::get(builder.getContext(), kernelName)}));
      if (oldModule.getBody()->getOperations().size() <= 1)
        oldModule.erase();
    }
  }
  return success();
}

/// An allocation inside a gpu.launch runs once per thread, so it is thread
/// private: a stack allocation (registers or local memory) has the same
/// meaning and needs no device malloc. Large ones are refused.
LogicalResult privatizeKernelAllocations(ModuleOp module) {
  constexpr int64_t kMaxPrivateBytes = 4096;
  SmallVector<memref::AllocOp> allocs;
  module.walk([&](gpu::LaunchOp launch) {
    launch.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  });
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape())
      return emitError(alloc.getLoc(),
                       "kernel allocates a dynamically sized buffer; "
                       "the schedule must give it a static size");
    int64_t bytes = type.getNumElements() *
                    std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    if (bytes > kMaxPrivateBytes)
      return emitError(alloc.getLoc(), "kernel allocates ")
             << bytes << " bytes per thread (limit " << kMaxPrivateBytes
             << "); stage it in shared memory or tile it smaller";
    if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
          return isa<memref::DeallocOp>(user);
        }))
      continue;
    OpBuilder builder(alloc);
    auto alloca = memref::AllocaOp::create(builder, alloc.getLoc(), type,
                                           alloc.getAlignmentAttr());
    alloc.replaceAllUsesWith(alloca.getResult());
    alloc.erase();
  }
  return success();
}

/// Out-params receive results through a final `memref.copy` from a local
/// allocation when the result came from a callee. Writing straight into the
/// out-param instead saves the copy and leaves host code a launch plan can
/// express. Only out-params nothing else touches qualify.
void forwardCopiesIntoOutParams(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    auto numInputs = func->getAttrOfType<IntegerAttr>("vibegemm.num_inputs");
    if (!numInputs || func.isExternal())
      continue;
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      // A result reshaped in host code (an epilogue's [B*S, N] expanded
      // to [B, S, N]): the allocation becomes the inverse reshape of the
      // out-param.
      Operation *reshape = copy.getSource().getDefiningOp();
      if (out && reshape && out.hasOneUse() &&
          isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(reshape) &&
          reshape->hasOneUse() &&
          static_cast<int64_t>(out.getArgNumber()) >= numInputs.getInt() &&
          cast<MemRefType>(out.getType()).getLayout().isIdentity()) {
        auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
        if (alloc && alloc->getBlock() == copy->getBlock()) {
          OpBuilder builder(alloc);
          Value view;
          if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
            view = memref::CollapseShapeOp::create(
                builder, alloc.getLoc(), out, expand.getReassociationIndices());
          else
            view = memref::ExpandShapeOp::create(
                builder, alloc.getLoc(), alloc.getType().getShape(), out,
                cast<memref::CollapseShapeOp>(reshape)
                    .getReassociationIndices());
          if (view.getType() == alloc.getType()) {
            copy.erase();
            reshape->erase();
            alloc.getResult().replaceAllUsesWith(view);
            alloc.erase();
            continue;
          }
          view.getDefiningOp()->erase();
        }
      }
      auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
      if (!out || out.getOwner() != &func.getBody().front() ||
          static_cast<int64_t>(out.getArgNumber()) < numInputs.getInt() ||
          !out.hasOneUse() || !alloc || alloc->getBlock() != copy->getBlock() ||
          alloc.getType() != out.getType())
        continue;
      copy.erase();
      alloc.getResult().replaceAllUsesWith(out);
      alloc.erase();
    }
  }
}

/// Hoists accumulator transfers out of K loops inside each kernel. A script
/// hoists them itself, but only where the output buffer has no other views;
/// a dispatch with several kernels (split edges) views it from each, and
/// only once outlined does every kernel see its own argument.
void hoistKernelAccumulators(ModuleOp module) {
  module.walk([](gpu::GPUFuncOp kernel) {
    linalg::hoistRedundantVectorTransfers(kernel);
  });
}

/// TMA descriptors reach a kernel as pointers to the 128-byte tensor map
/// in global memory, which the runtime encodes from the plan. NVVM lowering
/// has no conversion for a kernel argument of descriptor type, so the
/// argument becomes `!llvm.ptr` with a cast back for its users; the cast
/// folds away once the nvgpu ops are lowered.
void passTensorMapsAsPointers(ModuleOp module) {
  module.walk([](gpu::GPUFuncOp kernel) {
    if (kernel.isExternal())
      return;
    auto ptrType = LLVM::LLVMPointerType::get(kernel.getContext());
    Block &entry = kernel.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> argTypes(kernel.getArgumentTypes());
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      if (!isa<nvgpu::TensorMapDescriptorType>(arg.getType()))
        continue;
      Type descriptorType = arg.getType();
      arg.setType(ptrType);
      auto cast = UnrealizedConversionCastOp::create(
          builder, arg.getLoc(), descriptorType, ValueRange{arg});
      arg.replaceAllUsesExcept(cast.getResult(0), cast);
      argTypes[arg.getArgNumber()] = ptrType;
      changed = true;
    }
    if (changed)
      kernel.setFunctionType(FunctionType::get(
          kernel.getContext(), argTypes, kernel.getResultTypes()));
  });
  // The launches pass the same pointer; the plan reads the descriptor's
  // source through the cast.
  module.walk([](gpu::LaunchFuncOp launch) {
    OpBuilder builder(launch);
    auto ptrType = LLVM::LLVMPointerType::get(launch.getContext());
    for (OpOperand &operand : launch->getOpOperands())
      if (isa<nvgpu::TensorMapDescriptorType>(operand.get().getType()))
        operand.set(UnrealizedConversionCastOp::create(
                        builder, launch.getLoc(), ptrType, operand.get())
                        .getResult(0));
  });
}

/// What a gpu.launch asks of its kernel beyond its code: the cluster shape
/// and the registers a thread starts with (null: none).
struct LaunchHints {
  DenseI64ArrayAttr clusterShape;
  IntegerAttr maxRegisters;
};

/// Each gpu.launch's hints, in program order. Outlining replaces each
/// launch by a gpu.launch_func in place and keeps none of its discardable
/// attributes.
SmallVector<LaunchHints> collectLaunchHints(ModuleOp module) {
  SmallVector<LaunchHints> hints;
  module.walk([&](gpu::LaunchOp launch) {
    hints.push_back(
        {launch->getAttrOfType<DenseI64ArrayAttr>(vibegemm::kClusterShapeAttr),
         launch->getAttrOfType<IntegerAttr>(vibegemm::kMaxRegistersAttr)});
  });
  return hints;
}

/// Gives each outlined launch its hints: the cluster shape as the
/// launch_func's cluster sizes (the launch plan reads them) and as the
/// kernel's `nvvm.cluster_dim` (PTX's `.reqnctapercluster`), the
/// registers as the kernel's `nvvm.maxnreg` (PTX's `.maxnreg`).
LogicalResult applyLaunchHints(ModuleOp module, ArrayRef<LaunchHints> hints) {
  SmallVector<gpu::LaunchFuncOp> launches;
  module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
  if (launches.size() != hints.size())
    return emitError(module.getLoc(), "outlining changed the number of "
                                      "launches; cannot place their launch hints");
  for (auto [launch, hint] : llvm::zip(launches, hints)) {
    if (!hint.clusterShape && !hint.maxRegisters)
      continue;
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel)
      return emitError(launch.getLoc(), "kernel not found");
    OpBuilder builder(launch);
    if (hint.maxRegisters)
      kernel->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                      builder.getI32IntegerAttr(hint.maxRegisters.getInt()));
    DenseI64ArrayAttr shape = hint.clusterShape;
    if (!shape)
      continue;
    if (shape.size() != 3)
      return emitError(launch.getLoc(), "a cluster shape has three sizes");
    auto size = [&](int64_t v) {
      return arith::ConstantIndexOp::create(builder, launch.getLoc(), v)
          .getResult();
    };
    launch.getClusterSizeXMutable().assign(size(shape[0]));
    launch.getClusterSizeYMutable().assign(size(shape[1]));
    launch.getClusterSizeZMutable().assign(size(shape[2]));
    SmallVector<int32_t> dims(shape.asArrayRef());
    kernel->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    builder.getDenseI32ArrayAttr(dims));
  }
  return success();
}

/// Names of functions PTX declares `.extern` but does not define. Kernels
/// call libdevice (`__nv_tanhf`, ...) for math; when the CUDA toolkit's
/// libdevice was not found at serialisation they stay unresolved, and no
/// driver could load the module.
SmallVector<std::string> findUnresolvedFunctions(StringRef ptx) {
  SmallVector<std::string> names;
  constexpr StringLiteral kExtern = ".extern .func";
  for (size_t pos = ptx.find(kExtern); pos != StringRef::npos;
       pos = ptx.find(kExtern, pos + kExtern.size())) {
    StringRef rest = ptx.drop_front(pos + kExtern.size()).ltrim();
    if (rest.starts_with("(")) // the return value's .param list
      rest = rest.drop_until([](char c) { return c == ')'; }).drop_front();
    rest = rest.ltrim();
    StringRef name = rest.take_while(
        [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; });
    if (!name.empty())
      names.push_back(name.str());
  }
  return names;
}

class LowerToPTXPass
    : public vibegemm::impl::VibeGemmLowerToPTXPassBase<LowerToPTXPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const vibegemm::TargetInfo *info =
        vibegemm::lookupTargetOrEmitError(target, module.getLoc());
    if (!info)
      return signalPassFailure();
    if (getSchedulesModule(module, /*create=*/false)) {
      emitError(module.getLoc(), "schedules were not applied yet; run "
                                 "--vibegemm-apply-schedules first");
      return signalPassFailure();
    }
    // Launch plans map arguments back to inputs and results by position.
    for (auto func : module.getOps<func::FuncOp>())
      func->setAttr("vibegemm.num_inputs",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     func.getNumArguments()));

    for (func::FuncOp dispatch : getDispatches(module))
      markScriptBufferizedBoundary(dispatch);
    if (failed(runTextPipeline(module, kModuleBufferizationPipeline)) ||
        failed(privatizeKernelAllocations(module)))
      return signalPassFailure();
    SmallVector<LaunchHints> launchHints = collectLaunchHints(module);
    if (failed(runTextPipeline(module, kOutlineKernelsPipeline)) ||
        failed(applyLaunchHints(module, launchHints)))
      return signalPassFailure();
    // Host functions may keep linalg ops only when dispatch formation left
    // them there on purpose (gemm-only); a dispatch's must all be mapped.
    WalkResult leftover = module.walk([](func::FuncOp func) {
      if (!func->hasAttr(kDispatchAttr))
        return WalkResult::advance();
      bool hostLinalg = false;
      func.walk([&](Operation *op) {
        if (op->getDialect() && op->getDialect()->getNamespace() == "linalg" &&
            !op->getParentOfType<gpu::GPUModuleOp>())
          hostLinalg = true;
      });
      if (!hostLinalg)
        return WalkResult::advance();
      emitError(func.getLoc(),
                "the schedule left work outside any gpu.launch; every "
                "linalg op of a dispatch must be mapped to the GPU");
      return WalkResult::interrupt();
    });
    forwardCopiesIntoOutParams(module);
    hoistKernelAccumulators(module);
    passTensorMapsAsPointers(module);
    if (leftover.wasInterrupted() || failed(mergeKernelsPerDispatch(module)) ||
        failed(runTextPipeline(module, devicePipeline(*info, optLevel))))
      return signalPassFailure();
    externDynamicSharedMemory(module);
    if (failed(runTextPipeline(module, kSerialisePipeline)))
      return signalPassFailure();
    dropCompileTimes(module);
    for (auto binary : module.getOps<gpu::BinaryOp>())
      for (Attribute object : binary.getObjects()) {
        SmallVector<std::string> unresolved = findUnresolvedFunctions(
            cast<gpu::ObjectAttr>(object).getObject().getValue());
        if (unresolved.empty())
          continue;
        emitError(binary.getLoc(), "kernels of ")
            << binary.getSymName() << " call " << unresolved.front()
            << (unresolved.size() > 1 ? " (and more)" : "")
            << ", which needs CUDA's libdevice; it was not found. Install "
               "the CUDA toolkit or point CUDA_HOME at it";
        return signalPassFailure();
      }
  }

private:
  /// gpu-module-to-binary records how long LLVM took ("...TimeInMs") in
  /// each object; those numbers would make identical compiles differ.
  static void dropCompileTimes(ModuleOp module) {
    for (auto binary : module.getOps<gpu::BinaryOp>()) {
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        DictionaryAttr props = object.getProperties();
        SmallVector<NamedAttribute> kept;
        if (props)
          for (NamedAttribute entry : props)
            if (!entry.getName().strref().ends_with("TimeInMs"))
              kept.push_back(entry);
        objects.push_back(gpu::ObjectAttr::get(
            object.getContext(), object.getTarget(), object.getFormat(),
            object.getObject(),
            kept.empty() ? DictionaryAttr()
                         : DictionaryAttr::get(object.getContext(), kept),
            object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(module.getContext(), objects));
    }
  }

  LogicalResult runTextPipeline(ModuleOp module, StringRef text) {
    OpPassManager pm(ModuleOp::getOperationName());
    if (failed(parsePassPipeline(text, pm)))
      return emitError(module.getLoc(), "internal pipeline does not parse: ")
             << text;
    return runPipeline(pm, module);
  }
};

} // namespace
