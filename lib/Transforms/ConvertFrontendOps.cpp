//===- ConvertFrontendOps.cpp - One form for what frontends emit ----------===//
//
// Tensor-level elementwise ops, named linalg ops, splat constants and
// scalar arithmetic in 0-d tensors become the generics and fills that
// dispatch formation understands.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Prepare.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMCONVERTFRONTENDOPSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Named ops other than the GEMMs and fills become generics, so fusion and
/// dispatch formation see one form. Convolutions stay, to be refused.
struct GeneralizeFrontendNamedOp
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::MatmulOp, linalg::BatchMatmulOp,
            linalg::FillOp>(op) ||
        isa<linalg::ConvolutionOpInterface>(op.getOperation()) ||
        op->getName().getStringRef().contains("conv") ||
        !op.hasPureTensorSemantics())
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// A splat constant as a linalg init (TOSA's `arith.constant dense<0.0>`
/// accumulators), or as an input of a named op, becomes a `linalg.fill`.
struct SplatConstantToFill
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::FillOp>(op))
      return failure();
    bool changed = false;
    for (OpOperand &operand : op->getOpOperands()) {
      // Generics inline constant inputs instead (upstream's pattern).
      if (isa<linalg::GenericOp>(op) && op.isDpsInput(&operand))
        continue;
      auto constant = operand.get().getDefiningOp<arith::ConstantOp>();
      auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue())
                            : SplatElementsAttr();
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!splat || !type)
        continue;
      rewriter.setInsertionPoint(op);
      Location loc = constant.getLoc();
      Value scalar = arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      Value fill =
          linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
      rewriter.modifyOpInPlace(op, [&] { operand.set(fill); });
      changed = true;
    }
    return success(changed);
  }
};

/// A generic that reads none of its operands computes one scalar for every
/// element: it is a fill of that scalar, computed in host code.
struct ConstantGenericToFill : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    Block *body = op.getBody();
    if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        llvm::any_of(body->getArguments(),
                     [](BlockArgument arg) { return !arg.use_empty(); }))
      return failure();
    for (Operation &inner : body->without_terminator())
      if (inner.getNumRegions() != 0 || !isPure(&inner) ||
          isa<linalg::IndexOp>(inner))
        return failure();
    IRMapping mapping;
    rewriter.setInsertionPoint(op);
    for (Operation &inner : body->without_terminator())
      rewriter.clone(inner, mapping);
    Value scalar =
        mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
    auto type = cast<RankedTensorType>(op.getResultTypes()[0]);
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(),
                                          type.getShape(),
                                          type.getElementType());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
    return success();
  }
};

/// A generic input filled with a constant is that constant in the body.
struct InlineFilledInput : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto fill = input->get().getDefiningOp<linalg::FillOp>();
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (!fill || arg.use_empty() ||
          !matchPattern(fill.getInputs()[0], m_Constant()))
        continue;
      rewriter.setInsertionPointToStart(op.getBody());
      Operation *scalar =
          rewriter.clone(*fill.getInputs()[0].getDefiningOp());
      rewriter.replaceAllUsesWith(arg, scalar->getResult(0));
      changed = true;
    }
    return success(changed);
  }
};

class ConvertFrontendOpsPass
    : public vibegemm::impl::VibeGemmConvertFrontendOpsPassBase<
          ConvertFrontendOpsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    linalg::populateInlineConstantOperandsPatterns(patterns);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    patterns.add<GeneralizeFrontendNamedOp, SplatConstantToFill,
                 ConstantGenericToFill, InlineFilledInput>(&getContext());
    // A 0-d input that upstream inlined as a tensor.extract of a fill.
    linalg::FillOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyToPreparedFunctions(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
