//===- OutlineKernels.cpp - Outline launches, keeping their hints ---------===//
//
// Upstream's outlining replaces each gpu.launch by a gpu.launch_func in
// place and keeps none of its discardable attributes; the hints vibegemm's
// kernels need (cluster shape, starting registers) are carried across here.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMOUTLINEKERNELSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// What a gpu.launch asks of its kernel beyond its code (null: nothing).
struct LaunchHints {
  DenseI64ArrayAttr clusterShape;
  IntegerAttr maxRegisters;
};

/// Each gpu.launch's hints, in program order, which outlining keeps.
SmallVector<LaunchHints> collectLaunchHints(ModuleOp module) {
  SmallVector<LaunchHints> hints;
  module.walk([&](gpu::LaunchOp launch) {
    hints.push_back(
        {launch->getAttrOfType<DenseI64ArrayAttr>(kClusterShapeAttr),
         launch->getAttrOfType<IntegerAttr>(kMaxRegistersAttr)});
  });
  return hints;
}

/// The cluster shape goes on the launch_func (the launch plan reads it) and
/// on the kernel as `nvvm.cluster_dim` (`.reqnctapercluster`); registers as
/// the kernel's `nvvm.maxnreg` (`.maxnreg`).
LogicalResult applyLaunchHints(ModuleOp module, ArrayRef<LaunchHints> hints) {
  SmallVector<gpu::LaunchFuncOp> launches;
  module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
  if (launches.size() != hints.size())
    return emitError(module.getLoc(),
                     "outlining changed the number of launches; cannot "
                     "place their launch hints");
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

/// Host functions may keep linalg ops only where dispatch formation left
/// them on purpose (gemm-only); a dispatch's must all run on the GPU.
LogicalResult checkDispatchesMapped(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(kDispatchAttr))
      continue;
    WalkResult onHost = func.walk([](Operation *op) {
      return op->getDialect() && op->getDialect()->getNamespace() == "linalg" &&
                     !op->getParentOfType<gpu::GPUModuleOp>()
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (onHost.wasInterrupted())
      return emitError(func.getLoc(),
                       "the schedule left work outside any gpu.launch; every "
                       "linalg op of a dispatch must be mapped to the GPU");
  }
  return success();
}

class OutlineKernelsPass
    : public vibegemm::impl::VibeGemmOutlineKernelsPassBase<
          OutlineKernelsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LaunchHints> hints = collectLaunchHints(module);
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
    pm.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(pm, module)) ||
        failed(applyLaunchHints(module, hints)) ||
        failed(checkDispatchesMapped(module)))
      signalPassFailure();
  }
};

} // namespace
