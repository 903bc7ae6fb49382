//===- NormalizeContractions.cpp - One loop of each kind, an f32 fill -----===//
//
// Contractions as frontends write them (unit dimensions read through
// constant maps, several batch loops, f16/bf16 accumulators, accumulators
// initialised from a bias or an argument) become GEMMs with at most one
// batch, M, N and K loop that accumulate from their own fill, followed by
// the epilogue that adds the initial value and rounds.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Prepare.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMNORMALIZECONTRACTIONSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }
bool isGemmFloat(Type t) { return t.isF32() || isHalf(t); }

/// `value` converted between float types (extf or truncf), or as is.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

/// An input read through a constant 0 on a unit dimension (`(d0, d1) -> (0,
/// d1)`) is read collapsed instead, so its map is a projected permutation.
struct DropUnitConstantResults : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> replacements;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      AffineMap map = maps[input->getOperandNumber()];
      if (!type)
        continue;
      SmallVector<int64_t> dropped;
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        auto constant = dyn_cast<AffineConstantExpr>(expr);
        if (constant && constant.getValue() == 0 && type.getDimSize(i) == 1)
          dropped.push_back(i);
      }
      if (dropped.empty())
        continue;
      // Each kept dimension groups the unit dimensions before it; trailing
      // ones join the last group.
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t i = 0; i < type.getRank(); ++i) {
        pending.push_back(i);
        if (!llvm::is_contained(dropped, i)) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!pending.empty() && !groups.empty())
        groups.back().append(pending.begin(), pending.end());
      rewriter.setInsertionPoint(op);
      Value collapsed = tensor::CollapseShapeOp::create(
          rewriter, op.getLoc(), input->get(), groups);
      maps[input->getOperandNumber()] = map.dropResults(dropped);
      replacements.push_back({input, collapsed});
    }
    if (replacements.empty())
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [operand, value] : replacements)
        operand->set(value);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// The loop kinds of a contraction candidate (isContractionCandidate);
/// failure for any other op.
FailureOr<linalg::ContractionDimensions> candidateDims(linalg::GenericOp op) {
  if (!isContractionCandidate(op))
    return failure();
  return linalg::inferContractionDims(op);
}

/// The positions of `dims` in `map`'s results, sorted by that position.
SmallVector<unsigned> sortedByPosition(ArrayRef<unsigned> dims, AffineMap map) {
  SmallVector<unsigned> sorted(dims);
  llvm::stable_sort(sorted, [&](unsigned a, unsigned b) {
    return map.getResultPosition(getAffineDimExpr(a, map.getContext()))
               .value_or(0) <
           map.getResultPosition(getAffineDimExpr(b, map.getContext()))
               .value_or(0);
  });
  return sorted;
}

/// A contraction with several batch, M, N or K loops (attention's [B, H,
/// S, D] products; a batch broadcast against a 2-D weight, whose batch loop
/// is then an M loop) is interchanged to [batch..., M..., N..., K...] and
/// each kind collapsed into one loop.
struct CollapseContractionLoops : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<linalg::ContractionDimensions> dims = candidateDims(op);
    if (failed(dims) || dims->m.empty() || dims->n.empty() ||
        dims->k.empty() ||
        (dims->batch.size() <= 1 && dims->m.size() == 1 &&
         dims->n.size() == 1 && dims->k.size() == 1))
      return failure();
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    SmallVector<SmallVector<unsigned>> kinds = {
        sortedByPosition(dims->batch, outMap), sortedByPosition(dims->m, outMap),
        sortedByPosition(dims->n, outMap), sortedByPosition(dims->k, lhsMap)};
    SmallVector<unsigned> order;
    SmallVector<ReassociationIndices> originalGroups, groups;
    for (ArrayRef<unsigned> kind : kinds) {
      if (kind.size() > 1) {
        originalGroups.push_back(
            ReassociationIndices(kind.begin(), kind.end()));
        ReassociationIndices group;
        for (size_t i = 0; i < kind.size(); ++i)
          group.push_back(order.size() + i);
        groups.push_back(group);
      }
      order.append(kind.begin(), kind.end());
    }
    if (order.size() != op.getNumLoops() ||
        !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                          originalGroups))
      return failure();
    linalg::GenericOp ordered = op;
    if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
      FailureOr<linalg::GenericOp> interchanged =
          linalg::interchangeGenericOp(rewriter, op, order);
      if (failed(interchanged))
        return failure();
      ordered = *interchanged;
    }
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(ordered, groups, rewriter);
    if (failed(collapsed))
      return rewriter.notifyMatchFailure(op, "cannot collapse its loops");
    rewriter.replaceOp(ordered, collapsed->results);
    return success();
  }
};

/// A batched contraction's kernels read each operand batch-major: an input
/// whose batch dimension is not its outermost (StableHLO's dot_general with
/// permuted batch dimensions) is transposed first, by a named
/// `linalg.transpose` that fusion leaves alone and that runs as a generic
/// dispatch of its own.
struct MaterializeBatchMajorInputs : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<linalg::ContractionDimensions> dims = candidateDims(op);
    if (failed(dims) || dims->batch.size() != 1)
      return failure();
    AffineExpr batch = getAffineDimExpr(dims->batch[0], op.getContext());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool changed = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = maps[input->getOperandNumber()];
      std::optional<unsigned> pos = map.getResultPosition(batch);
      if (!pos || *pos == 0)
        continue;
      SmallVector<int64_t> permutation = {static_cast<int64_t>(*pos)};
      for (unsigned i = 0; i < map.getNumResults(); ++i)
        if (i != *pos)
          permutation.push_back(i);
      auto type = cast<RankedTensorType>(input->get().getType());
      SmallVector<int64_t> shape;
      SmallVector<AffineExpr> results;
      for (int64_t i : permutation) {
        shape.push_back(type.getDimSize(i));
        results.push_back(map.getResult(i));
      }
      rewriter.setInsertionPoint(op);
      Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), shape,
                                            type.getElementType());
      Value transposed =
          linalg::TransposeOp::create(rewriter, op.getLoc(), input->get(),
                                      empty, permutation)
              .getResult()[0];
      rewriter.modifyOpInPlace(op, [&] { input->set(transposed); });
      maps[input->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, results, op.getContext());
      changed = true;
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// A contraction generic like `op` that accumulates into `init`, its body
/// rebuilt to multiply and add in `init`'s element type.
linalg::GenericOp rebuildContraction(RewriterBase &rewriter,
                                     linalg::GenericOp op, Value init) {
  Type acc = getElementTypeOrSelf(init.getType());
  return linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{init.getType()}, op.getDpsInputs(),
      ValueRange{init}, op.getIndexingMapsArray(),
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value lhs = convertFloat(b, loc, args[0], acc);
        Value rhs = convertFloat(b, loc, args[1], acc);
        Value product = arith::MulFOp::create(b, loc, lhs, rhs);
        Value sum = arith::AddFOp::create(b, loc, args[2], product);
        linalg::YieldOp::create(b, loc, sum);
      });
}

/// Every GEMM accumulates from a fill of its own, in f32 where its operands
/// are f16/bf16. What the accumulator started from (a tensor, or the fill
/// of a narrower accumulator) is added, and the result rounded, in an
/// elementwise epilogue.
struct NormalizeAccumulator
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isContractionCandidate(op) || op.getNumDpsInits() != 1)
      return failure();
    Value init = op.getDpsInits()[0];
    auto initType = cast<RankedTensorType>(init.getType());
    Type accType = initType.getElementType();
    Type lhsType = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    Type rhsType = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
    if (!isGemmFloat(lhsType) || !isGemmFloat(rhsType) || !isGemmFloat(accType))
      return failure();
    Type wideType = isHalf(accType) ? rewriter.getF32Type() : accType;
    auto fill = init.getDefiningOp<linalg::FillOp>();
    Location loc = op.getLoc();
    // A fill shared with other GEMMs is cloned by vibegemm-untie-epilogues.
    if (fill && wideType == accType)
      return failure();

    rewriter.setInsertionPoint(op);
    Value start = fill ? convertFloat(rewriter, loc, fill.getInputs()[0],
                                      wideType)
                       : arith::ConstantOp::create(
                             rewriter, loc, rewriter.getZeroAttr(wideType))
                             .getResult();
    Value wideEmpty = emptyLike(rewriter, loc, init, wideType);
    Value wideFill =
        linalg::FillOp::create(rewriter, loc, start, wideEmpty).getResult(0);
    FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
    if (failed(generic))
      return failure();
    rewriter.setInsertionPoint(*generic);
    linalg::GenericOp gemm = rebuildContraction(rewriter, *generic, wideFill);

    // The epilogue: plus the initial tensor, rounded to the result type.
    int64_t rank = initType.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<Value> inputs = {gemm.getResult(0)};
    if (!fill)
      inputs.push_back(init);
    Value out = emptyLike(rewriter, loc, init, accType);
    auto epilogue = linalg::GenericOp::create(
        rewriter, loc, TypeRange{initType}, inputs, ValueRange{out},
        SmallVector<AffineMap>(inputs.size() + 1, identity),
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0];
          if (!fill)
            v = arith::AddFOp::create(
                b, l, v, convertFloat(b, l, args[1], wideType));
          linalg::YieldOp::create(b, l, convertFloat(b, l, v, accType));
        });
    rewriter.replaceOp(*generic, epilogue.getResults());
    return success();
  }
};

/// Unit loops that index one operand only are dropped, with reshapes
/// around the op: an epilogue writing a [1, S, N] view of a 2-D GEMM result
/// (as torch-mlir's nn.Linear on a batch of one leaves it) then runs on the
/// result itself. In a contraction they are neither batch, M, N nor K (each
/// indexes two operands or three), so a GEMM with M = 1 stays a GEMM. Other
/// reductions (layer norm's sums over [1, S, D]) lose every unit loop, so
/// their generic schedule sees the rows and the reduced dimension alone.
void dropUnitLoops(func::FuncOp func) {
  SmallVector<linalg::GenericOp> candidates;
  func.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics())
      candidates.push_back(op);
  });
  for (linalg::GenericOp op : candidates) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<unsigned> unit;
    bool plainReduction = op.getNumReductionLoops() > 0 &&
                          !isContractionCandidate(op);
    for (unsigned i = 0; i < ranges.size(); ++i) {
      int users = llvm::count_if(op.getIndexingMapsArray(), [&](AffineMap m) {
        return m.isFunctionOfDim(i);
      });
      if (ranges[i] == 1 && (users <= 1 || plainReduction))
        unit.push_back(i);
    }
    // An op keeps one loop at least, for the GPU to spread.
    if (unit.size() == ranges.size())
      unit.pop_back();
    if (unit.empty())
      continue;
    linalg::ControlDropUnitDims options;
    options.controlFn = [&](Operation *) { return unit; };
    IRRewriter rewriter(op);
    FailureOr<linalg::DropUnitDimsResult> dropped =
        linalg::dropUnitDims(rewriter, op, options);
    if (succeeded(dropped))
      rewriter.replaceOp(op, dropped->replacements);
  }
}

class NormalizeContractionsPass
    : public vibegemm::impl::VibeGemmNormalizeContractionsPassBase<
          NormalizeContractionsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DropUnitConstantResults, CollapseContractionLoops,
                 MaterializeBatchMajorInputs, NormalizeAccumulator>(&getContext());
    // Dropped unit loops leave reshapes of fills and empties behind.
    linalg::FillOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Unit loops show once constant maps are collapsed; dropping them may
    // leave more to normalise.
    (void)applyToPreparedFunctions(getOperation(), frozen);
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isPreparedFunction(func))
        dropUnitLoops(func);
    (void)applyToPreparedFunctions(getOperation(), frozen);
  }
};

} // namespace
