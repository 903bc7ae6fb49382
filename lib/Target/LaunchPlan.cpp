//===- LaunchPlan.cpp - Launch plan v1 from lowered IR --------------------===//
//
// Walks a lowered function in program order: allocations become scratch or
// temp buffers, gpu.launch_func ops become launches, calls to dispatches
// are followed with their arguments renamed.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vibegemm;

std::string vibegemm::planDtype(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isInteger(64) || type.isIndex())
    return "i64";
  if (type.isInteger(32))
    return "i32";
  if (type.isInteger(8))
    return "i8";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3fn";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  return "unknown";
}

namespace {

class PlanBuilder {
public:
  PlanBuilder(StringRef target, const PtxFileNamer &namer)
      : target(target), ptxFileFor(namer) {}

  FailureOr<llvm::json::Object> build(func::FuncOp func) {
    auto numInputsAttr =
        func->getAttrOfType<IntegerAttr>("vibegemm.num_inputs");
    int64_t numInputs =
        numInputsAttr ? numInputsAttr.getInt() : func.getNumArguments();
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return emitError(func.getLoc(),
                         "launch plans take memref arguments only");
      bool isInput = static_cast<int64_t>(i) < numInputs;
      std::string name = isInput ? "arg" + std::to_string(i)
                                 : "res" + std::to_string(i - numInputs);
      llvm::json::Object buffer = shapedBuffer(name, type);
      buffer["kind"] = isInput ? "input" : "output";
      buffer[isInput ? "arg_index" : "result_index"] =
          isInput ? static_cast<int64_t>(i)
                  : static_cast<int64_t>(i) - numInputs;
      if (auto scale = func.getArgAttrOfType<FloatAttr>(i, kVerifyScaleAttr);
          scale && isInput)
        buffer["verify_scale"] = scale.getValueAsDouble();
      buffers.push_back(std::move(buffer));
      names[arg] = name;
    }
    if (failed(walk(func)))
      return failure();
    llvm::json::Object plan{{"version", 1},
                            {"function", func.getSymName().str()},
                            {"target", target.str()},
                            {"buffers", std::move(buffers)},
                            {"launches", std::move(launches)}};
    if (func->hasAttr("vibegemm.dispatch"))
      plan["dispatch"] = func.getSymName().str();
    if (!f32Precision.empty())
      plan["f32_precision"] = f32Precision;
    return plan;
  }

private:
  static llvm::json::Object shapedBuffer(StringRef name, MemRefType type) {
    return llvm::json::Object{{"name", name.str()},
                              {"shape", llvm::json::Array(type.getShape())},
                              {"dtype", planDtype(type.getElementType())}};
  }

  LogicalResult walk(func::FuncOp func) {
    // TF32 is the loosest: it wins over 3xTF32 where dispatches differ.
    if (auto precision = func->getAttrOfType<StringAttr>(kF32PrecisionAttr))
      if (f32Precision.empty() || precision.getValue() == "tf32")
        f32Precision = precision.getValue().str();
    for (Operation &op : func.getBody().getOps()) {
      // A reshape of a whole row-major buffer (split-K views K as
      // [split, K / split]) is the same buffer to a kernel taking pointers.
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op)) {
        auto type = cast<MemRefType>(op.getResult(0).getType());
        auto it = names.find(op.getOperand(0));
        if (it != names.end() && type.getLayout().isIdentity()) {
          names[op.getResult(0)] = it->second;
          continue;
        }
      }
      // Tensor maps are encoded by the runtime when a launch passes them.
      if (isa<nvgpu::TmaCreateDescriptorOp>(op))
        continue;
      // Side-effect-free host ops (constants, poison) launch nothing.
      if (isa<func::ReturnOp, memref::DeallocOp>(op) || isMemoryEffectFree(&op))
        continue;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (failed(addAllocation(alloc, func->hasAttr("vibegemm.dispatch"))))
          return failure();
        continue;
      }
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        if (failed(addLaunch(launch)))
          return failure();
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return emitError(call.getLoc(),
                           "launch plan cannot follow this call");
        for (auto [operand, arg] :
             llvm::zip(call.getOperands(), callee.getArguments())) {
          auto it = names.find(operand);
          if (it == names.end())
            return emitError(call.getLoc(),
                             "call operand is not a known buffer");
          names[arg] = it->second;
        }
        if (failed(walk(callee)))
          return failure();
        continue;
      }
      return emitError(op.getLoc(), "a launch plan cannot express '")
             << op.getName() << "' in host code";
    }
    return success();
  }

  LogicalResult addAllocation(memref::AllocOp alloc, bool inDispatch) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape())
      return emitError(alloc.getLoc(), "launch plans need static allocations");
    std::string name;
    llvm::json::Object buffer;
    if (inDispatch) {
      name = "ws" + std::to_string(numScratch++);
      int64_t bits = type.getElementTypeBitWidth();
      // The shape lets the runtime encode tensor maps over it.
      buffer = shapedBuffer(name, type);
      buffer["kind"] = "scratch";
      buffer["bytes"] = type.getNumElements() * std::max<int64_t>(1, bits / 8);
      buffer["zero_init"] = false;
    } else {
      name = "t" + std::to_string(numTemps++);
      buffer = shapedBuffer(name, type);
      buffer["kind"] = "temp";
    }
    buffers.push_back(std::move(buffer));
    names[alloc.getResult()] = name;
    return success();
  }

  LogicalResult addLaunch(gpu::LaunchFuncOp launch) {
    auto constant = [&](Value v, int64_t &out) {
      APInt value;
      if (!matchPattern(v, m_ConstantInt(&value)))
        return false;
      out = value.getSExtValue();
      return true;
    };
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    int64_t g[3], b[3];
    if (!constant(grid.x, g[0]) || !constant(grid.y, g[1]) ||
        !constant(grid.z, g[2]) || !constant(block.x, b[0]) ||
        !constant(block.y, b[1]) || !constant(block.z, b[2]))
      return emitError(launch.getLoc(),
                       "launch plans need constant grid and block "
                       "sizes");
    int64_t cluster[3] = {1, 1, 1};
    if (launch.hasClusterSize()) {
      gpu::KernelDim3 sizes = launch.getClusterSizeOperandValues();
      if (!constant(sizes.x, cluster[0]) || !constant(sizes.y, cluster[1]) ||
          !constant(sizes.z, cluster[2]))
        return emitError(launch.getLoc(),
                         "launch plans need constant cluster sizes");
    }
    int64_t shared = 0;
    if (Value dyn = launch.getDynamicSharedMemorySize())
      if (!constant(dyn, shared))
        return emitError(launch.getLoc(), "dynamic shared memory size must be "
                                          "constant");
    llvm::json::Array args;
    for (Value operand : launch.getKernelOperands()) {
      if (isa<MemRefType>(operand.getType())) {
        auto it = names.find(operand);
        if (it == names.end())
          return emitError(launch.getLoc(),
                           "kernel operand is not a whole buffer "
                           "(a view?); launch plans pass buffers");
        args.push_back(llvm::json::Object{{"buffer", it->second}});
        continue;
      }
      if (auto tensorMap = tensorMapSource(operand)) {
        FailureOr<llvm::json::Object> arg = tensorMapArg(launch, tensorMap);
        if (failed(arg))
          return failure();
        args.push_back(std::move(*arg));
        continue;
      }
      Attribute attr;
      if (!matchPattern(operand, m_Constant(&attr)))
        return emitError(launch.getLoc(),
                         "scalar kernel operand is not a constant");
      if (auto i = dyn_cast<IntegerAttr>(attr)) {
        bool is32 = i.getType().isInteger(32);
        args.push_back(llvm::json::Object{{is32 ? "i32" : "i64", i.getInt()}});
      } else if (auto f = dyn_cast<FloatAttr>(attr)) {
        args.push_back(
            llvm::json::Object{{"f32", f.getValue().convertToDouble()}});
      } else {
        return emitError(launch.getLoc(), "unsupported scalar kernel operand");
      }
    }
    llvm::json::Object entry{
        {"ptx", ptxFileFor(launch.getKernelModuleName().getValue())},
        {"kernel", launch.getKernelName().str()},
        {"grid", llvm::json::Array{g[0], g[1], g[2]}},
        {"block", llvm::json::Array{b[0], b[1], b[2]}},
        {"shared_bytes", shared},
        {"args", std::move(args)}};
    if (cluster[0] * cluster[1] * cluster[2] > 1)
      entry["cluster"] = llvm::json::Array{cluster[0], cluster[1], cluster[2]};
    launches.push_back(std::move(entry));
    return success();
  }

  /// The descriptor op behind a kernel's tensor-map pointer (outlining
  /// passes it through a cast to `!llvm.ptr`).
  static nvgpu::TmaCreateDescriptorOp tensorMapSource(Value operand) {
    if (auto cast = operand.getDefiningOp<UnrealizedConversionCastOp>())
      if (cast->getNumOperands() == 1)
        operand = cast->getOperand(0);
    return operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
  }

  /// A tensor map over a whole plan buffer: the runtime encodes it with
  /// cuTensorMapEncodeTiled for the buffer's address and passes a pointer
  /// to it. Box sizes are outermost first, like the buffer's shape.
  FailureOr<llvm::json::Object>
  tensorMapArg(gpu::LaunchFuncOp launch, nvgpu::TmaCreateDescriptorOp op) {
    Value source = op.getTensor();
    if (auto cast = source.getDefiningOp<memref::CastOp>())
      source = cast.getSource();
    auto it = names.find(source);
    auto type = dyn_cast<MemRefType>(source.getType());
    if (it == names.end() || !type || !type.getLayout().isIdentity())
      return emitError(launch.getLoc(), "a TMA descriptor must cover a "
                                        "whole row-major plan buffer");
    llvm::json::Array box;
    for (Value size : op.getBoxDimensions()) {
      APInt value;
      if (!matchPattern(size, m_ConstantInt(&value)))
        return emitError(op.getLoc(), "TMA box sizes must be constants");
      box.push_back(value.getSExtValue());
    }
    nvgpu::TensorMapDescriptorType desc = op.getTensorMap().getType();
    return llvm::json::Object{
        {"tensor_map",
         llvm::json::Object{
             {"buffer", it->second},
             {"box", std::move(box)},
             {"swizzle",
              nvgpu::stringifyTensorMapSwizzleKind(desc.getSwizzle()).str()},
             {"l2promo",
              nvgpu::stringifyTensorMapL2PromoKind(desc.getL2promo()).str()},
             {"oob", nvgpu::stringifyTensorMapOOBKind(desc.getOob()).str()},
             {"interleave", nvgpu::stringifyTensorMapInterleaveKind(
                                desc.getInterleave())
                                .str()}}}};
  }

  StringRef target;
  const PtxFileNamer &ptxFileFor;
  llvm::DenseMap<Value, std::string> names;
  llvm::json::Array buffers, launches;
  int numScratch = 0, numTemps = 0;
  std::string f32Precision; // "", "tf32" or "3xtf32"
};

} // namespace

FailureOr<llvm::json::Object>
vibegemm::buildLaunchPlan(func::FuncOp func, StringRef target,
                          const PtxFileNamer &ptxFileFor) {
  return PlanBuilder(target, ptxFileFor).build(func);
}

/// Buffer name of a dispatch argument in launch plans ("arg<i>").
static std::optional<std::string> planArgName(func::FuncOp dispatch, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &dispatch.front())
    return std::nullopt;
  return "arg" + std::to_string(arg.getArgNumber());
}

std::optional<llvm::json::Object> vibegemm::describeGemm(func::FuncOp dispatch,
                                                         const GemmProblem &p,
                                                         bool &plain) {
  plain = false;
  linalg::LinalgOp root = vibegemm::getDispatchRoot(dispatch);
  if (!root || root.getNumDpsInputs() != 2 || dispatch.getNumResults() != 1)
    return std::nullopt;
  std::optional<std::string> a =
      planArgName(dispatch, root.getDpsInputOperand(0)->get());
  std::optional<std::string> b =
      planArgName(dispatch, root.getDpsInputOperand(1)->get());
  auto result = dyn_cast<RankedTensorType>(dispatch.getResultTypes()[0]);
  if (!a || !b || !result || result.getNumElements() != p.batch * p.m * p.n)
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(dispatch.front().getTerminator());
  auto fill = root.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  plain = p.epilogueOps == 0 && !p.hasSoftmax &&
          ret.getOperand(0) == root->getResult(0) && fill &&
          (matchPattern(fill.value(), m_AnyZeroFloat()) ||
           matchPattern(fill.value(), m_Zero()));
  return llvm::json::Object{{"batch", p.batch},
                            {"m", p.m},
                            {"n", p.n},
                            {"k", p.k},
                            {"a", *a},
                            {"b", *b},
                            {"c", "res0"},
                            {"transpose_a", p.transposeA},
                            {"transpose_b", p.transposeB}};
}
