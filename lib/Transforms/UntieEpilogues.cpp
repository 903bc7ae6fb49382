//===- UntieEpilogues.cpp - Fresh outputs for elementwise ops -------------===//
//
// An elementwise generic that writes into storage it does not own (the
// GEMM's result, a function argument, an empty tensor shared with another
// op) gets a fresh `tensor.empty`; what its body read from that output
// comes in as an input.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Prepare.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMUNTIEEPILOGUESPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// An all-parallel generic's inits that are not fresh empties are replaced
/// by fresh ones; an init the body reads becomes an input.
struct UntieElementwiseOutputs : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        op.getNumParallelLoops() != op.getNumLoops())
      return failure();
    auto untied = [](Value init) {
      return init.getDefiningOp<tensor::EmptyOp>() != nullptr;
    };
    if (llvm::all_of(op.getDpsInits(), untied))
      return failure();

    SmallVector<Value> inputs(op.getDpsInputs());
    SmallVector<AffineMap> inputMaps, outputMaps;
    for (OpOperand *input : op.getDpsInputOperands())
      inputMaps.push_back(op.getMatchingIndexingMap(input));
    SmallVector<Value> outputs;
    SmallVector<unsigned> movedInits; // init positions read by the body
    Location loc = op.getLoc();
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      outputMaps.push_back(map);
      if (untied(init.get())) {
        outputs.push_back(init.get());
        continue;
      }
      if (!op.getMatchingBlockArgument(&init).use_empty()) {
        movedInits.push_back(outputs.size());
        inputs.push_back(init.get());
        inputMaps.push_back(map);
      }
      auto type = cast<RankedTensorType>(init.get().getType());
      outputs.push_back(
          emptyLike(rewriter, loc, init.get(), type.getElementType()));
    }
    SmallVector<AffineMap> maps(inputMaps);
    maps.append(outputMaps);
    auto fresh = linalg::GenericOp::create(
        rewriter, loc, op.getResultTypes(), inputs, outputs, maps,
        op.getIteratorTypesArray());
    fresh->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(op.getRegion(), fresh.getRegion(),
                                fresh.getRegion().end());
    Block &body = fresh.getRegion().front();
    unsigned numOldInputs = op.getNumDpsInputs();
    // New input arguments go after the old inputs; the init arguments move
    // back accordingly and lose their readers.
    SmallVector<BlockArgument> newArgs;
    for (unsigned initIndex : movedInits)
      newArgs.push_back(body.insertArgument(
          numOldInputs + newArgs.size(),
          getElementTypeOrSelf(outputs[initIndex].getType()), loc));
    unsigned firstInit = numOldInputs + newArgs.size();
    for (auto [arg, initIndex] : llvm::zip(newArgs, movedInits))
      rewriter.replaceAllUsesWith(body.getArgument(firstInit + initIndex),
                                  arg);
    rewriter.replaceOp(op, fresh.getResults());
    return success();
  }
};

/// A `tensor.empty` or `linalg.fill` that several ops use (CSE merges
/// them) is cloned for each: every GEMM owns its accumulator's fill and
/// every op its output.
template <typename OpTy>
struct OnePerUse : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op->hasOneUse() || op->use_empty())
      return failure();
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        op->getUses(), [](OpOperand &use) { return &use; });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      rewriter.setInsertionPoint(use->getOwner());
      Operation *copy = rewriter.clone(*op);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(copy->getResult(0)); });
    }
    return success();
  }
};

class UntieEpiloguesPass
    : public vibegemm::impl::VibeGemmUntieEpiloguesPassBase<
          UntieEpiloguesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<UntieElementwiseOutputs, OnePerUse<tensor::EmptyOp>,
                 OnePerUse<linalg::FillOp>>(&getContext());
    if (failed(applyToPreparedFunctions(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
