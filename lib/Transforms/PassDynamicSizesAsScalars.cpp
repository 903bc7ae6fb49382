//===- PassDynamicSizesAsScalars.cpp - run-time sizes as kernel arguments -===//
//
// Dynamically shaped kernel buffers pass as a pointer plus index arguments,
// since bare-pointer kernels carry no memref descriptor.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMPASSDYNAMICSIZESASSCALARSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

/// The pointer-only type a dynamically shaped buffer is passed as.
MemRefType withUnitDynamicSizes(MemRefType type) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t &size : shape)
    if (ShapedType::isDynamic(size))
      size = 1;
  return MemRefType::get(shape, type.getElementType(), AffineMap(),
                         type.getMemorySpace());
}

/// Rewrites one kernel's signature and body; returns, per original
/// argument, whether it was rewritten.
SmallVector<bool> rewriteKernel(gpu::GPUFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  unsigned numArgs = entry.getNumArguments();
  SmallVector<bool> rewritten(numArgs, false);
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (unsigned i = 0; i < numArgs; ++i) {
    BlockArgument arg = entry.getArgument(i);
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || type.hasStaticShape() || !type.getLayout().isIdentity())
      continue;
    Location loc = arg.getLoc();
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(
          ShapedType::isDynamic(size)
              ? OpFoldResult(entry.addArgument(b.getIndexType(), loc))
              : OpFoldResult(b.getIndexAttr(size)));
    // Row-major strides: products of the inner sizes.
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t d = type.getRank() - 2; d >= 0; --d) {
      std::optional<int64_t> inner = getConstantIntValue(strides[d + 1]);
      std::optional<int64_t> size = getConstantIntValue(sizes[d + 1]);
      if (inner && size) {
        strides[d] = b.getIndexAttr(*inner * *size);
        continue;
      }
      strides[d] =
          arith::MulIOp::create(
              b, loc, getValueOrCreateConstantIndexOp(b, loc, strides[d + 1]),
              getValueOrCreateConstantIndexOp(b, loc, sizes[d + 1]))
              .getResult();
    }
    arg.setType(withUnitDynamicSizes(type));
    auto view = memref::ReinterpretCastOp::create(
        b, loc, type, arg, b.getIndexAttr(0), sizes, strides);
    arg.replaceAllUsesExcept(view.getResult(), view);
    rewritten[i] = true;
  }
  if (llvm::is_contained(rewritten, true))
    kernel.setFunctionType(FunctionType::get(kernel.getContext(),
                                             entry.getArgumentTypes(),
                                             kernel.getResultTypes()));
  return rewritten;
}

class PassDynamicSizesAsScalarsPass
    : public vibegemm::impl::VibeGemmPassDynamicSizesAsScalarsPassBase<
          PassDynamicSizesAsScalarsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<Operation *, SmallVector<bool>> rewrittenArgs;
    module.walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isExternal() || !kernel.isKernel())
        return;
      SmallVector<bool> rewritten = rewriteKernel(kernel);
      if (llvm::is_contained(rewritten, true))
        rewrittenArgs[kernel] = std::move(rewritten);
    });
    if (rewrittenArgs.empty())
      return;
    SymbolTableCollection symbols;
    module.walk([&](gpu::LaunchFuncOp launch) {
      Operation *kernel =
          symbols.lookupNearestSymbolFrom(launch, launch.getKernelAttr());
      auto it = rewrittenArgs.find(kernel);
      if (it == rewrittenArgs.end())
        return;
      OpBuilder b(launch);
      Location loc = launch.getLoc();
      SmallVector<Value> operands(launch.getKernelOperands());
      SmallVector<Value> sizes;
      for (auto [i, rewritten] : llvm::enumerate(it->second)) {
        if (!rewritten)
          continue;
        Value buffer = operands[i];
        auto type = cast<MemRefType>(buffer.getType());
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            sizes.push_back(memref::DimOp::create(b, loc, buffer, d));
        operands[i] =
            memref::CastOp::create(b, loc, withUnitDynamicSizes(type), buffer);
      }
      llvm::append_range(operands, sizes);
      launch.getKernelOperandsMutable().assign(operands);
    });
  }
};
} // namespace
