//===- LowerToCPU.cpp - Lower CPU-check schedules for mlir-runner ---------===//
//
// The testing path: scheduled dispatches whose foralls became loops are
// bufferized and lowered to the LLVM dialect, so mlir-runner can check the
// schedule's arithmetic against a reference on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMLOWERTOCPUPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// After the module-wide bufferization: everything to the LLVM dialect.
/// Unused private symbols (torch-mlir's ml_program globals) are dropped;
/// math functions LLVM has no intrinsic for (erf) call libm.
void addCpuLoweringPasses(OpPassManager &pm) {
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createVibeGemmWidenFloat8Pass());
  VectorTransferToSCFOptions toScf;
  toScf.enableFullUnroll();
  pm.addPass(createConvertVectorToSCFPass(toScf));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// memref.expand_shape into several run-time sizes of one group (a batch
/// folded into M expanded back to [B, S, N]) crashes LLVM 22's
/// expand-strided-metadata; over a row-major source it is a
/// reinterpret_cast with the row-major strides of the result.
void rewriteDynamicExpandShapes(ModuleOp module) {
  SmallVector<memref::ExpandShapeOp> expands;
  module.walk([&](memref::ExpandShapeOp expand) {
    if (expand.getSrcType().getLayout().isIdentity() &&
        expand.getResultType().getLayout().isIdentity() &&
        expand.getResultType().getNumDynamicDims() > 1)
      expands.push_back(expand);
  });
  for (memref::ExpandShapeOp expand : expands) {
    OpBuilder b(expand);
    Location loc = expand.getLoc();
    SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    OpFoldResult stride = b.getIndexAttr(1);
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride = affine::makeComposedFoldedAffineApply(
          b, loc, b.getAffineSymbolExpr(0) * b.getAffineSymbolExpr(1),
          {stride, sizes[d]});
    }
    auto cast = memref::ReinterpretCastOp::create(
        b, loc, expand.getResultType(), expand.getSrc(), b.getIndexAttr(0),
        sizes, strides);
    expand.getResult().replaceAllUsesWith(cast.getResult());
    expand.erase();
  }
}

class LowerToCPUPass
    : public vibegemm::impl::VibeGemmLowerToCPUPassBase<LowerToCPUPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Dispatches, and host functions some were inlined into (a check
    // harness over a run-time size): only scripts have bufferized yet.
    for (auto func : module.getOps<func::FuncOp>())
      markScriptBufferizedBoundary(func);
    OpPassManager bufferize(ModuleOp::getOperationName());
    addModuleBufferizationPasses(bufferize);
    if (failed(runPipeline(bufferize, module)))
      return signalPassFailure();
    rewriteDynamicExpandShapes(module);
    OpPassManager lower(ModuleOp::getOperationName());
    addCpuLoweringPasses(lower);
    if (failed(runPipeline(lower, module)))
      signalPassFailure();
  }
};

} // namespace
