//===- FormDispatches.cpp - Outline GEMM dispatches -----------------------===//
//
// Groups each GEMM root with the op that initialises its accumulator (the
// fill, or a copy of an input it accumulates onto) and the chain of
// elementwise / softmax consumers it feeds, outlines the group into its own
// `func.func` marked `vibegemm.dispatch`, and refuses inputs vibegemm cannot
// compile yet with a located diagnostic.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Prepare.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMFORMDISPATCHESPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Ops that may stay in host code around dispatch calls: reshapes of whole
/// row-major tensors are free there (the launch plan aliases the buffer).
bool isHostOp(Operation *op) {
  // Index arithmetic on sizes: a batch folded into M is B * S.
  if (isa<affine::AffineApplyOp>(op))
    return true;
  return isa<func::ReturnOp, func::CallOp, tensor::EmptyOp, arith::ConstantOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::DimOp>(op);
}

/// The one op that uses `value` (several times, as in x * sigmoid(x)), or
/// null.
Operation *soleUser(Value value) {
  Operation *user = nullptr;
  for (Operation *u : value.getUsers()) {
    if (user && user != u)
      return nullptr;
    user = u;
  }
  return user;
}

/// An op without parallel loops (a 0-d scalar computation, a reduction to a
/// scalar) gets a unit parallel loop in front, with a [1] output collapsed
/// back, so the generic schedule has a dimension to spread over blocks.
FailureOr<Operation *> addUnitParallelLoop(linalg::LinalgOp op) {
  IRRewriter rewriter(op);
  FailureOr<linalg::GenericOp> asGenericOp = asGeneric(rewriter, op);
  if (failed(asGenericOp))
    return failure();
  linalg::GenericOp generic = *asGenericOp;
  if (generic.getNumDpsInits() != 1 ||
      !generic.getBody()->getOps<linalg::IndexOp>().empty())
    return failure();
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineMap> maps;
  for (AffineMap map : generic.getIndexingMapsArray())
    maps.push_back(map.shiftDims(1));
  AffineMap &outMap = maps.back();
  outMap = outMap.insertResult(getAffineDimExpr(0, ctx), 0);
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel};
  llvm::append_range(iterators, generic.getIteratorTypesArray());
  Location loc = op.getLoc();
  Value init = generic.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> shape = {1};
  llvm::append_range(shape, initType.getShape());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < initType.getRank(); ++i)
    groups.push_back(i == 0 ? ReassociationIndices{0, 1}
                            : ReassociationIndices{i + 1});
  auto wideType = RankedTensorType::get(shape, initType.getElementType());
  // A reduction's fill is widened with it, to stay its init.
  Value wideInit;
  if (auto fill = init.getDefiningOp<linalg::FillOp>(); fill && fill->hasOneUse())
    wideInit = linalg::FillOp::create(
                   rewriter, loc, fill.getInputs()[0],
                   tensor::EmptyOp::create(rewriter, loc, shape,
                                           initType.getElementType())
                       .getResult())
                   .getResult(0);
  else
    wideInit =
        tensor::ExpandShapeOp::create(rewriter, loc, wideType, init, groups);
  auto wide = linalg::GenericOp::create(
      rewriter, loc, TypeRange{wideType}, generic.getDpsInputs(),
      ValueRange{wideInit}, maps, iterators);
  rewriter.inlineRegionBefore(generic.getRegion(), wide.getRegion(),
                              wide.getRegion().end());
  Value narrow = tensor::CollapseShapeOp::create(
      rewriter, loc, initType, wide.getResult(0), groups);
  Operation *oldInit = init.getDefiningOp();
  rewriter.replaceOp(generic, narrow);
  if (oldInit && isa<linalg::FillOp>(oldInit) && oldInit->use_empty())
    rewriter.eraseOp(oldInit);
  return wide.getOperation();
}

/// An elementwise consumer, or a softmax over the last dimension, that can
/// run in the GEMM's epilogue.
bool isFusableEpilogue(Operation *op, int64_t gemmRank) {
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op))
    return softmax.getInputOperandType().getRank() == gemmRank &&
           static_cast<int64_t>(softmax.getDimension()) == gemmRank - 1;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getNumLoops() != gemmRank)
    return false;
  for (AffineMap map : generic.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return false;
  // The kernels evaluate the body per element without the generic's loops
  // around it, so it may not ask for their indices.
  if (!generic.getBody()->getOps<linalg::IndexOp>().empty())
    return false;
  return generic.getIndexingMapsArray().back().isIdentity();
}

class FormDispatchesPass
    : public vibegemm::impl::VibeGemmFormDispatchesPassBase<
          FormDispatchesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (f32Precision != "ieee" && f32Precision != "tf32" &&
        f32Precision != "3xtf32") {
      emitError(module.getLoc(), "f32-precision must be ieee, tf32 or "
                                 "3xtf32, not '")
          << f32Precision << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func->hasAttr(kDispatchAttr) && !func->hasAttr(kIgnoreAttr) &&
          !func.isExternal())
        funcs.push_back(func);

    // Dispatches formed earlier (a module compiled in steps) must be as
    // this pass leaves them; anything else marked so is refused.
    bool anyGemm = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kDispatchAttr))
        continue;
      if (!func->getAttrOfType<StringAttr>(kSignatureAttr) || func.isExternal()
          || (!isGenericDispatch(func) && failed(getGemmProblem(func)))) {
        emitError(func.getLoc(), "function @")
            << func.getSymName() << " is marked " << kDispatchAttr
            << " but is not a dispatch vibegemm formed (its GEMM marked "
            << "vibegemm.role = \"root\" and a " << kSignatureAttr
            << " string); remove the attribute and let vibegemm form it";
        return signalPassFailure();
      }
      anyGemm = true;
    }
    for (func::FuncOp func : funcs) {
      if (failed(checkSupported(func)))
        return signalPassFailure();
      FailureOr<int> formed = formDispatches(func);
      if (failed(formed))
        return signalPassFailure();
      anyGemm |= *formed > 0;
    }
    if (!anyGemm && !gemmOnly) {
      emitError(module.getLoc(),
                "no GEMM found, nor any other linalg op to compile: "
                "vibegemm compiles linalg.matmul, linalg.batch_matmul, "
                "contraction linalg.generic ops and the linalg ops around "
                "them on static-shaped tensors");
      return signalPassFailure();
    }
  }

private:
  /// Refuses what later stages cannot handle, at the offending op.
  LogicalResult checkSupported(func::FuncOp func) {
    auto checkType = [&](Type type, Location loc,
                         bool atBoundary) -> LogicalResult {
      auto shaped = dyn_cast<ShapedType>(type);
      Type elt = shaped ? shaped.getElementType() : type;
      if (!shaped)
        return success();
      if (!elt.isIntOrFloat())
        return emitError(loc, "element type ")
               << elt << " is not supported; vibegemm compiles tensors of "
               << "f32, f16 and bf16";
      if (isUnsupportedDynamicShape(type, atBoundary))
        return emitUnsupportedDynamicShapeError(loc, type);
      if (llvm::is_contained(shaped.getShape(), 0))
        return emitError(loc, "tensor ")
               << type << " is empty; every dimension must be at least 1";
      int64_t bytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
      for (int64_t dim : shaped.getShape()) {
        if (ShapedType::isDynamic(dim))
          continue;
        if (dim > maxDim)
          return emitError(loc, "dimension of size ")
                 << dim << " exceeds the supported maximum of "
                 << static_cast<int64_t>(maxDim);
        bytes *= dim;
        if (bytes > maxTensorBytes)
          return emitError(loc, "tensor ")
                 << type << " is larger than "
                 << static_cast<int64_t>(maxTensorBytes) << " bytes";
      }
      return success();
    };
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (failed(checkType(type, func.getArgument(i).getLoc(), true)))
        return failure();
    WalkResult result = func.walk([&](Operation *op) {
      if (isa<linalg::ConvolutionOpInterface>(op) ||
          op->getName().getStringRef().starts_with("linalg.conv") ||
          op->getName().getStringRef().starts_with("linalg.depthwise_conv")) {
        emitError(op->getLoc(),
                  "convolutions are not supported; vibegemm compiles "
                  "GEMMs and their epilogues");
        return WalkResult::interrupt();
      }
      // A launch plan passes buffers: tensor data lives in arguments.
      if (auto constant = dyn_cast<arith::ConstantOp>(op);
          constant && isa<RankedTensorType>(constant.getType()) &&
          !isa<SplatElementsAttr>(constant.getValue())) {
        emitError(op->getLoc(), "tensor constants with data (weights baked "
                                "into the IR) are not supported; pass them "
                                "as function arguments");
        return WalkResult::interrupt();
      }
      for (Type type : op->getResultTypes())
        if (failed(checkType(type, op->getLoc(), false)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Whether `size` is dimension `d` of `collapsed`, a tensor.collapse_shape,
  /// written as the product of its source's sizes (what canonicalization
  /// makes of tensor.dim of a collapse: affine.apply s0 * s1 of two
  /// tensor.dims; value bounds do not see through collapses).
  static bool isCollapsedSize(Value size, Value collapsed, int64_t d) {
    auto collapse = collapsed.getDefiningOp<tensor::CollapseShapeOp>();
    auto apply = size.getDefiningOp<affine::AffineApplyOp>();
    if (!collapse || !apply)
      return false;
    Value source = collapse.getSrc();
    auto sourceType = cast<RankedTensorType>(source.getType());
    MLIRContext *ctx = size.getContext();
    AffineMap map = apply.getAffineMap();
    AffineExpr expected = getAffineConstantExpr(1, ctx);
    llvm::SmallDenseSet<int64_t> dynamicDims;
    for (int64_t i : collapse.getReassociationIndices()[d]) {
      if (sourceType.isDynamicDim(i))
        dynamicDims.insert(i);
      else
        expected = expected * sourceType.getDimSize(i);
    }
    if (apply.getMapOperands().size() != dynamicDims.size())
      return false;
    for (auto [pos, operand] : llvm::enumerate(apply.getMapOperands())) {
      auto dim = operand.getDefiningOp<tensor::DimOp>();
      std::optional<int64_t> index =
          dim ? dim.getConstantIndex() : std::nullopt;
      if (!dim || dim.getSource() != source || !index ||
          !dynamicDims.erase(*index))
        return false;
      expected =
          expected * (pos < map.getNumDims()
                          ? getAffineDimExpr(pos, ctx)
                          : getAffineSymbolExpr(pos - map.getNumDims(), ctx));
    }
    return simplifyAffineExpr(expected, map.getNumDims(),
                              map.getNumSymbols()) ==
           simplifyAffineExpr(map.getResult(0), map.getNumDims(),
                              map.getNumSymbols());
  }

  /// A size computed on the host (a batch folded into M: B * S) that is a
  /// dimension of a collapsed tensor the group reads becomes a tensor.dim
  /// of it, so the dispatch reads it from its own input.
  static void
  readSizeFromGroupInput(OpOperand &size, ArrayRef<Operation *> group,
                         const llvm::SmallPtrSetImpl<Operation *> &inGroup) {
    if (size.get().getDefiningOp<tensor::DimOp>())
      return;
    for (Operation *op : group)
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.getType());
        Operation *def = operand.getDefiningOp();
        // Data the group reads, available where the size is used.
        if (!type ||
            (def && (inGroup.contains(def) || isa<tensor::EmptyOp>(def) ||
                     def->getBlock() != size.getOwner()->getBlock() ||
                     !def->isBeforeInBlock(size.getOwner()))))
          continue;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          if (!type.isDynamicDim(d) || !isCollapsedSize(size.get(), operand, d))
            continue;
          OpBuilder b(size.getOwner());
          size.set(
              tensor::DimOp::create(b, size.getOwner()->getLoc(), operand, d));
          return;
        }
      }
  }

  /// Outlines every GEMM group of `func`; returns how many were formed.
  FailureOr<int> formDispatches(func::FuncOp func) {
    SmallVector<linalg::LinalgOp> roots;
    func.walk([&](linalg::LinalgOp op) {
      if (isGemmRoot(op))
        roots.push_back(op);
    });
    for (linalg::LinalgOp &root : roots) {
      if (!root.hasPureTensorSemantics())
        return emitError(root->getLoc(),
                         "vibegemm compiles linalg on tensors; this GEMM "
                         "works on memrefs (write it on tensors, or "
                         "bufferize after vibegemm)");
      for (OpOperand &operand : root->getOpOperands()) {
        Type elt = getElementTypeOrSelf(operand.get().getType());
        // FP8 inputs accumulate in f32 (the init is f32).
        bool fp8Input = isFloat8(elt) && root.isDpsInput(&operand) &&
                        getElementTypeOrSelf(root.getDpsInits()[0].getType())
                            .isF32();
        if (!elt.isF32() && !elt.isF16() && !elt.isBF16() && !fp8Input)
          return emitError(root->getLoc(), "GEMM element type ")
                 << elt << " is not supported; vibegemm compiles f32, f16 "
                 << "and bf16 operands (f32 accumulation), and FP8 "
                 << "(f8E4M3FN, f8E5M2) inputs into an f32 accumulator";
      }
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(root);
      if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
          dims->k.size() != 1 || dims->batch.size() > 1)
        continue; // getGemmProblem refuses it with its own message
      // Rows of blocks run along grid y and batches along grid z, at most
      // 65535 each; the kernels' row tiles are at most 128 (not every
      // tiling reaches that: smaller ones fail where they would exceed it).
      SmallVector<int64_t> ranges = root.getStaticLoopRanges();
      constexpr int64_t kGridLimit = 65535, kRowsPerBlock = 128;
      int64_t m = ranges[dims->m[0]];
      if (m > kGridLimit * kRowsPerBlock)
        return emitError(root->getLoc(), "M = ")
               << m << " is more rows than a launch covers (65535 blocks "
               << "along grid y of at most 128 rows); split the GEMM "
               << "along M";
      if (!dims->batch.empty() && ranges[dims->batch[0]] > kGridLimit)
        return emitError(root->getLoc(), "a batch of ")
               << ranges[dims->batch[0]]
               << " is more than a launch covers (65535 blocks along "
               << "grid z); split the batch";
      // Schedules tile a GEMM's loops by position, as [batch,] M, N, K: a
      // contraction generic with its loops in another order is
      // interchanged first (tiling its K across blocks would race).
      auto generic = dyn_cast<linalg::GenericOp>(root.getOperation());
      SmallVector<unsigned> order(dims->batch.begin(), dims->batch.end());
      order.append({dims->m[0], dims->n[0], dims->k[0]});
      if (!generic || order.size() != generic.getNumLoops())
        continue;
      IRRewriter rewriter(generic);
      FailureOr<linalg::GenericOp> reordered =
          linalg::interchangeGenericOp(rewriter, generic, order);
      if (failed(reordered))
        return emitError(generic.getLoc(),
                         "cannot order this contraction's loops as "
                         "[batch,] M, N, K");
      root = *reordered;
    }

    int index = 0;
    for (linalg::LinalgOp root : roots) {
      SmallVector<Operation *> group = collectGroup(root);
      outline(func, group, root, index++);
    }
    if (failed(formGenericDispatches(func, index)))
      return failure();
    return index;
  }

  /// Every op no GEMM took becomes a generic dispatch of its own (a
  /// softmax is decomposed into its generics first); with `gemm-only` they
  /// stay where they are, for the host flow to compile.
  LogicalResult formGenericDispatches(func::FuncOp func, int &index) {
    if (gemmOnly)
      return success();
    SmallVector<linalg::SoftmaxOp> softmaxes;
    func.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
    for (linalg::SoftmaxOp softmax : softmaxes) {
      IRRewriter rewriter(softmax);
      FailureOr<SmallVector<Value>> parts =
          softmax.decomposeOperation(rewriter);
      if (failed(parts))
        return emitError(softmax.getLoc(), "cannot decompose this softmax "
                                           "into generics for its kernels");
      rewriter.replaceOp(softmax, *parts);
    }
    SmallVector<Operation *> leftovers;
    for (Operation &op : func.getBody().getOps())
      if (!isHostOp(&op))
        leftovers.push_back(&op);
    // A reduction accumulates onto its init: the fill that starts it runs
    // in the same kernel, fused into the reduction's tiles.
    auto initFill = [&](linalg::LinalgOp op) -> linalg::FillOp {
      if (!op || op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1)
        return {};
      auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
      return fill && fill->hasOneUse() &&
                     fill->getBlock() == &func.getBody().front()
                 ? fill
                 : linalg::FillOp();
    };
    for (Operation *op : leftovers) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (isa<linalg::FillOp>(op) && op->hasOneUse() &&
          initFill(dyn_cast<linalg::LinalgOp>(*op->getUsers().begin())) == op)
        continue; // outlined with its reduction
      if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
          linalgOp.getNumDpsInits() != 1)
        return emitError(op->getLoc(), "'")
               << op->getName()
               << "' is not part of any GEMM dispatch, and vibegemm has no "
                  "generic kernel for it: outside GEMMs it compiles linalg "
                  "ops on tensors with one output, and reshapes (or pass "
                  "gemm-only=true to vibegemm-compile and compile the rest "
                  "in your own flow)";
      if (linalgOp.getNumParallelLoops() == 0) {
        FailureOr<Operation *> widened = addUnitParallelLoop(linalgOp);
        if (failed(widened))
          return emitError(op->getLoc(), "cannot give this op a parallel "
                                         "loop to spread over the GPU");
        op = *widened;
        linalgOp = cast<linalg::LinalgOp>(op);
      }
      op->setAttr(kRoleAttr, StringAttr::get(op->getContext(), "generic"));
      SmallVector<Operation *> group = {op};
      if (linalgOp.getNumReductionLoops() > 0) {
        Operation *init = initFill(linalgOp);
        if (!init)
          init = copyInitIntoOwnTensor(linalgOp);
        init->setAttr(kRoleAttr, StringAttr::get(op->getContext(), "init"));
        group.insert(group.begin(), init);
      }
      outline(func, group, linalgOp, index++, /*generic=*/true);
    }
    return success();
  }

  /// `op` accumulates onto a tensor it does not own (an argument, a value
  /// used elsewhere): copies it into a fresh one first, so the kernel
  /// initialises its tiles as it would from a fill. Returns the copy.
  static Operation *copyInitIntoOwnTensor(linalg::LinalgOp op) {
    OpBuilder builder(op);
    Value init = op.getDpsInits()[0];
    auto type = cast<RankedTensorType>(init.getType());
    Value empty = emptyLike(builder, op.getLoc(), init, type.getElementType());
    Operation *copy = linalg::CopyOp::create(builder, op.getLoc(), init, empty);
    op->setOperand(op.getDpsInitOperand(0)->getOperandNumber(),
                   copy->getResult(0));
    return copy;
  }

  /// The root, its accumulator fill, and the fusable consumer chain.
  SmallVector<Operation *> collectGroup(linalg::LinalgOp root) {
    SmallVector<Operation *> group;
    Value init = root.getDpsInits()[0];
    auto fill = init.getDefiningOp<linalg::FillOp>();
    Operation *initOp = fill && fill->hasOneUse() ? fill.getOperation()
                                                  : copyInitIntoOwnTensor(root);
    initOp->setAttr(kRoleAttr, StringAttr::get(root.getContext(), "init"));
    group.push_back(initOp);
    root->setAttr(kRoleAttr, StringAttr::get(root.getContext(), "root"));
    group.push_back(root);

    int64_t rank = cast<ShapedType>(init.getType()).getRank();
    Value current = root->getResult(0);
    int epilogueIndex = 0;
    while (Operation *user = soleUser(current)) {
      if (!isFusableEpilogue(user, rank))
        break;
      // Roles are indexed so a script can address each consumer.
      std::string role = isa<linalg::SoftmaxOp>(user)
                             ? std::string("softmax")
                             : ("epilogue" + Twine(epilogueIndex++)).str();
      user->setAttr(kRoleAttr, StringAttr::get(user->getContext(), role));
      group.push_back(user);
      // A softmax ends the chain: schedules give it a kernel of its own.
      if (isa<linalg::SoftmaxOp>(user))
        break;
      current = user->getResult(0);
    }
    return group;
  }

  void outline(func::FuncOp func, ArrayRef<Operation *> group,
               linalg::LinalgOp root, int index, bool generic = false) {
    MLIRContext *ctx = func.getContext();
    llvm::SmallPtrSet<Operation *, 8> inGroup(group.begin(), group.end());

    // Values the group reads from outside; constants and empties are cloned.
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> cloned;
    for (Operation *op : group)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && inGroup.contains(def))
          continue;
        if (def && isa<arith::ConstantOp, tensor::EmptyOp>(def)) {
          // A dynamic size read from a tensor is read again inside.
          for (OpOperand &sizeOperand : def->getOpOperands()) {
            readSizeFromGroupInput(sizeOperand, group, inGroup);
            Value size = sizeOperand.get();
            auto dim = size.getDefiningOp<tensor::DimOp>();
            if (!dim)
              continue;
            if (Operation *index = dim.getIndex().getDefiningOp())
              cloned.insert(index);
            if (!inGroup.contains(dim.getSource().getDefiningOp()))
              inputs.insert(dim.getSource());
            cloned.insert(dim);
          }
          cloned.insert(def);
        } else
          inputs.insert(operand);
      }
    // Constants the bodies use from the function (canonicalization hoists
    // them there) come along too.
    for (Operation *op : group) {
      llvm::SetVector<Value> above;
      for (Region &region : op->getRegions())
        getUsedValuesDefinedAbove(region, above);
      for (Value value : above) {
        Operation *def = value.getDefiningOp();
        if (def && inGroup.contains(def))
          continue;
        if (def && def->hasTrait<OpTrait::ConstantLike>())
          cloned.insert(def);
        else
          inputs.insert(value);
      }
    }

    // Function arguments keep their order, so a single-dispatch function and
    // its dispatch take the same inputs; other values follow in first use.
    SmallVector<Value> ordered = inputs.takeVector();
    llvm::stable_sort(ordered, [](Value a, Value b) {
      auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
      if (argA && argB)
        return argA.getArgNumber() < argB.getArgNumber();
      return argA && !argB;
    });
    inputs.insert(ordered.begin(), ordered.end());

    Operation *last = group.back();
    // Dispatches go to the end of the module, in the order they were formed.
    auto builder =
        OpBuilder::atBlockEnd(func->getParentOfType<ModuleOp>().getBody());
    std::string name = (func.getSymName() + "_d" + Twine(index)).str();
    auto fnType = builder.getFunctionType(
        llvm::map_to_vector(inputs, [](Value v) { return v.getType(); }),
        last->getResultTypes());
    auto dispatch = func::FuncOp::create(builder, root.getLoc(), name, fnType);
    dispatch->setAttr(kDispatchAttr, builder.getUnitAttr());
    if (generic)
      dispatch->setAttr(kGenericDispatchAttr, builder.getUnitAttr());
    if (!generic && group.back() != root.getOperation())
      dispatch->setAttr(kFuseEpiloguesAttr, builder.getBoolAttr(fuseEpilogues));
    if (!generic && f32Precision != "ieee" &&
        getElementTypeOrSelf(root.getDpsInputs()[0].getType()).isF32() &&
        getElementTypeOrSelf(root.getDpsInputs()[1].getType()).isF32())
      dispatch->setAttr(kF32PrecisionAttr, builder.getStringAttr(f32Precision));
    dispatch->setAttr(kFusionAttr, builder.getStrArrayAttr(llvm::map_to_vector(
                                       group, [](Operation *op) -> StringRef {
                                         return op->getName().getStringRef();
                                       })));

    Block *body = dispatch.addEntryBlock();
    IRMapping mapping;
    for (auto [value, arg] : llvm::zip(inputs, body->getArguments()))
      mapping.map(value, arg);
    OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
    for (Operation *op : cloned)
      bodyBuilder.clone(*op, mapping);
    for (Operation *op : group)
      bodyBuilder.clone(*op, mapping);
    func::ReturnOp::create(
        bodyBuilder, last->getLoc(),
        llvm::map_to_vector(last->getResults(),
                            [&](Value v) { return mapping.lookup(v); }));
    dispatch->setAttr(kSignatureAttr,
                      StringAttr::get(ctx, computeSignature(dispatch)));
    // Before a softmax, verification scales the GEMM's operands by
    // K^-1/4 / 2 each: its dot products are then about 0.1, and a bf16
    // intermediate's rounding step moves the softmax by under 0.4 %.
    if (isa<linalg::SoftmaxOp>(last)) {
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(root);
      SmallVector<int64_t> ranges = root.getStaticLoopRanges();
      if (succeeded(dims) && dims->k.size() == 1 &&
          !ShapedType::isDynamic(ranges[dims->k[0]])) {
        double scale =
            0.5 * std::pow(static_cast<double>(ranges[dims->k[0]]), -0.25);
        for (Value operand : root.getDpsInputs()) {
          auto it = llvm::find(inputs, operand);
          if (it != inputs.end())
            dispatch.setArgAttr(std::distance(inputs.begin(), it),
                                kVerifyScaleAttr,
                                builder.getF64FloatAttr(scale));
        }
      }
    }

    builder.setInsertionPointAfter(last);
    auto call = func::CallOp::create(builder, last->getLoc(), dispatch,
                                     inputs.getArrayRef());
    last->replaceAllUsesWith(call.getResults());
    for (Operation *op : llvm::reverse(group))
      op->erase();
    for (Operation *op : cloned)
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
