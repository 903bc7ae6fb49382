//===- FuseProducers.cpp - Fold data movement and epilogue DAGs -----------===//
//
// Transposes and broadcasts fold into the indexing maps of their users,
// a GEMM's included; elementwise producers fold into the elementwise
// consumer they alone feed; reshapes between a GEMM and its epilogue move
// past the epilogue.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Prepare.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMFUSEPRODUCERSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Named GEMMs fed by a transpose or broadcast become generics, so the
/// fusion below can fold that producer into their maps.
struct GeneralizeGemmFedByDataMovement
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
        !op.hasPureTensorSemantics())
      return failure();
    bool fed = llvm::any_of(op.getDpsInputs(), [](Value input) {
      auto producer = input.getDefiningOp<linalg::GenericOp>();
      return producer && isDataMovementGeneric(producer);
    });
    if (!fed)
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// Which producers fold into which consumers.
bool shouldFuse(OpOperand *fused) {
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!producer || !consumer)
    return false;
  if (isDataMovementGeneric(producer))
    return true;
  // Arithmetic never moves into a reduction (a GEMM's body must stay a
  // multiply-add) and is never computed twice.
  if (consumer.getNumReductionLoops() != 0)
    return false;
  return llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == consumer; });
}

class FuseProducersPass
    : public vibegemm::impl::VibeGemmFuseProducersPassBase<FuseProducersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeneralizeGemmFedByDataMovement>(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *) { return true; });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                       &getContext());
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    if (failed(applyToPreparedFunctions(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
