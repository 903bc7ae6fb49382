//===- BucketDispatches.cpp - one dispatch per bucket of a dynamic M ------===//
//
// A GEMM dispatch over a run-time M becomes one dispatch per bucket of M,
// each scheduled for its bucket, and its calls a host-side choice among
// them.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMBUCKETDISPATCHESPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

struct Bucket {
  int64_t lo, hi;
};

bool hasDynamicShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

/// `type` with every dynamic size set to `m`.
Type withStaticM(Type type, int64_t m) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return type;
  SmallVector<int64_t> shape(tensor.getShape());
  for (int64_t &size : shape)
    if (ShapedType::isDynamic(size))
      size = m;
  return tensor.clone(shape);
}

/// Dimension `dim` of `source` for `call`: as the host already reads it (a
/// frontend's tensor.dim), else read before the call.
Value readSize(OpBuilder &b, func::CallOp call, Value source, unsigned dim) {
  for (Operation *user : source.getUsers())
    if (auto read = dyn_cast<tensor::DimOp>(user);
        read && read.getConstantIndex() == static_cast<int64_t>(dim) &&
        read->getBlock() == call->getBlock() && read->isBeforeInBlock(call))
      return read;
  return tensor::DimOp::create(b, call.getLoc(), source,
                               static_cast<int64_t>(dim));
}

class BucketDispatchesPass
    : public vibegemm::impl::VibeGemmBucketDispatchesPassBase<
          BucketDispatchesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<int64_t> bounds(bucketSizes.begin(), bucketSizes.end());
    if (bounds.empty())
      bounds = {1, 16, 64, 256, 1024};
    for (auto [i, bound] : llvm::enumerate(bounds))
      if (bound < 1 || (i > 0 && bound <= bounds[i - 1]) ||
          bound >= kMaxDynamicM) {
        emitError(module.getLoc(), "bucket-sizes must increase from at "
                                   "least 1 and stay below ")
            << kMaxDynamicM;
        return signalPassFailure();
      }
    SmallVector<Bucket> buckets;
    int64_t lo = 1;
    for (int64_t bound : bounds) {
      buckets.push_back({lo, bound});
      lo = bound + 1;
    }
    buckets.push_back({lo, kMaxDynamicM});

    SmallVector<func::FuncOp> dynamic;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kDispatchAttr) &&
          (llvm::any_of(func.getArgumentTypes(), hasDynamicShape) ||
           llvm::any_of(func.getResultTypes(), hasDynamicShape)))
        dynamic.push_back(func);
    SymbolTable symbols(module);
    for (func::FuncOp dispatch : dynamic)
      if (failed(isGenericDispatch(dispatch)
                     ? bucketGeneric(dispatch, symbols)
                     : bucket(dispatch, buckets, symbols)))
        return signalPassFailure();
  }

private:
  /// The position of the first operand dimension that is M, or a
  /// diagnostic when the dispatch's dynamic sizes are not all M.
  FailureOr<std::pair<unsigned, unsigned>>
  checkOnlyMDynamic(func::FuncOp dispatch) {
    linalg::LinalgOp root = getDispatchRoot(dispatch);
    FailureOr<linalg::ContractionDimensions> dims =
        root ? linalg::inferContractionDims(root)
             : FailureOr<linalg::ContractionDimensions>(failure());
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1)
      return dispatch.emitError("a dispatch with a dynamic shape must hold "
                                "one GEMM with one M, N and K dimension");
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    auto isDyn = [&](unsigned d) { return ShapedType::isDynamic(ranges[d]); };
    if (isDyn(dims->n[0]) || isDyn(dims->k[0]))
      return root->emitError("only M may be dynamic: this GEMM's ")
             << (isDyn(dims->n[0]) ? "N" : "K")
             << " is dynamic (vibegemm tiles N and K statically)";
    if (!dims->batch.empty() && isDyn(dims->batch[0]))
      return root->emitError("a dynamic batch is not supported yet; only "
                             "M may be dynamic");
    if (!isDyn(dims->m[0]))
      return dispatch.emitError("this dispatch has a dynamic size, but its "
                                "GEMM's M is static; only M may be dynamic");
    // M's position in the GEMM's left operand, read on the host.
    OpOperand *lhs = root.getDpsInputOperand(0);
    auto arg = dyn_cast<BlockArgument>(lhs->get());
    AffineMap map = root.getMatchingIndexingMap(lhs);
    std::optional<unsigned> pos;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(expr);
          d && d.getPosition() == dims->m[0])
        pos = i;
    if (!arg || !pos)
      return root->emitError("a GEMM with a dynamic M must read its left "
                             "operand from a dispatch argument, M in one "
                             "of its dimensions");
    // Every dynamic size of the arguments and results is one M: a tensor
    // of the GEMM's rank or the output's, with one dynamic dimension.
    for (Type type : llvm::concat<const Type>(dispatch.getArgumentTypes(),
                                              dispatch.getResultTypes())) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (shaped && shaped.getNumDynamicDims() > 1)
        return dispatch.emitError("only M may be dynamic, but ")
               << type << " has several dynamic dimensions";
      if (shaped && shaped.getRank() > 0 &&
          shaped.isDynamicDim(shaped.getRank() - 1))
        return dispatch.emitError("only M may be dynamic, in a leading "
                                  "dimension, but ")
               << type << " has a dynamic innermost dimension";
    }
    return std::make_pair(arg.getArgNumber(), *pos);
  }

  /// A clone of `dispatch` serving `bucket`, named for it and signed: static
  /// when the bucket holds one size.
  FailureOr<func::FuncOp> cloneForBucket(func::FuncOp dispatch, Bucket bucket,
                                         SymbolTable &symbols) {
    bool oneSize = bucket.lo == bucket.hi;
    func::FuncOp clone =
        oneSize ? withStaticSignature(dispatch, bucket.lo) : dispatch.clone();
    clone.setSymName(llvm::formatv("{0}_m{1}_{2}", dispatch.getSymName(),
                                   bucket.lo, bucket.hi)
                         .str());
    symbols.insert(clone, Block::iterator(dispatch));
    if (failed(oneSize ? foldToStatic(clone, dispatch, bucket.lo)
                       : takeMArgument(clone, bucket)))
      return failure();
    clone->setAttr(kSignatureAttr, StringAttr::get(clone.getContext(),
                                                   computeSignature(clone)));
    return clone;
  }

  /// An empty function with `dispatch`'s attributes and its signature with M
  /// fixed at `m`.
  static func::FuncOp withStaticSignature(func::FuncOp dispatch, int64_t m) {
    auto fix = [&](Type t) { return withStaticM(t, m); };
    FunctionType type =
        FunctionType::get(dispatch.getContext(),
                          llvm::map_to_vector(dispatch.getArgumentTypes(), fix),
                          llvm::map_to_vector(dispatch.getResultTypes(), fix));
    auto clone =
        func::FuncOp::create(dispatch.getLoc(), dispatch.getSymName(), type);
    clone->setAttrs(dispatch->getAttrs());
    clone.setFunctionType(type);
    clone.addEntryBlock();
    return clone;
  }

  /// Fills the static `clone` with `dispatch`'s body, reached through casts
  /// that canonicalization folds away, and checks nothing stays dynamic.
  LogicalResult foldToStatic(func::FuncOp clone, func::FuncOp dispatch,
                             int64_t m) {
    OpBuilder inner = OpBuilder::atBlockEnd(&clone.front());
    IRMapping mapping;
    for (auto [old, arg] :
         llvm::zip(dispatch.getArguments(), clone.getArguments())) {
      Value value = arg;
      if (old.getType() != arg.getType())
        value = tensor::CastOp::create(inner, arg.getLoc(), old.getType(), arg);
      mapping.map(old, value);
    }
    for (Operation &op : dispatch.front().without_terminator())
      inner.clone(op, mapping);
    auto ret = cast<func::ReturnOp>(dispatch.front().getTerminator());
    SmallVector<Value> results;
    for (auto [value, type] :
         llvm::zip(ret.getOperands(), clone.getResultTypes()))
      results.push_back(tensor::CastOp::create(inner, ret.getLoc(), type,
                                               mapping.lookup(value)));
    func::ReturnOp::create(inner, ret.getLoc(), results);
    // No CSE: it would merge the tensor.empty ops a GEMM and its epilogue
    // write into, putting the epilogue in place over the accumulator.
    OpPassManager pm(func::FuncOp::getOperationName());
    pm.addPass(createCanonicalizerPass());
    if (failed(runPipeline(pm, clone)))
      return failure();
    WalkResult dynamic = clone.walk([](Operation *op) {
      return llvm::any_of(op->getResultTypes(), hasDynamicShape)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return dispatch.emitError("could not make this dispatch static at M = ")
             << m;
    return success();
  }

  /// Gives a clone serving `bucket` M as a trailing index argument: every
  /// size it reads of a dynamic dimension is M, and its results'
  /// allocations, sized by an argument, move to the caller at
  /// bufferization.
  static LogicalResult takeMArgument(func::FuncOp clone, Bucket bucket) {
    Builder b(clone.getContext());
    clone->setAttr(kMRangeAttr, b.getDenseI64ArrayAttr({bucket.lo, bucket.hi}));
    unsigned index = clone.getNumArguments();
    if (failed(clone.insertArgument(index, b.getIndexType(), DictionaryAttr(),
                                    clone.getLoc())))
      return failure();
    BlockArgument m = clone.getArgument(index);
    clone.walk([&](tensor::DimOp dim) {
      std::optional<int64_t> at = dim.getConstantIndex();
      if (at &&
          cast<RankedTensorType>(dim.getSource().getType()).isDynamicDim(*at)) {
        dim.getResult().replaceAllUsesWith(m);
        dim.erase();
      }
    });
    return success();
  }

  /// The run-time sizes of a generic dispatch, each the `k`-th dynamic
  /// dimension of every argument and result having any: checked against
  /// its op's indexing maps, which must read each loop of a run-time size
  /// at one position `k`. Returns the number of sizes and an argument
  /// holding them all.
  static FailureOr<std::pair<unsigned, unsigned>>
  checkGenericSizes(func::FuncOp dispatch) {
    std::optional<unsigned> count, holder;
    for (auto [i, type] : llvm::enumerate(llvm::concat<const Type>(
             dispatch.getArgumentTypes(), dispatch.getResultTypes()))) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (!shaped || shaped.hasStaticShape())
        continue;
      if (count && *count != shaped.getNumDynamicDims())
        return dispatch.emitError("a generic dispatch over run-time sizes "
                                  "needs as many of them in every argument "
                                  "and result that has any, but ")
               << type << " has " << shaped.getNumDynamicDims() << ", not "
               << *count;
      count = shaped.getNumDynamicDims();
      if (!holder && i < dispatch.getNumArguments())
        holder = i;
    }
    if (!holder)
      return dispatch.emitError("a generic dispatch over run-time sizes "
                                "must take one of them in an argument");
    linalg::LinalgOp op = getOpWithRole(dispatch, "generic");
    if (!op)
      return dispatch.emitError("generic dispatch has no op marked "
                                "vibegemm.role = \"generic\"");
    // The position among the dynamic sizes each loop is read at.
    DenseMap<unsigned, unsigned> positionOfLoop;
    for (OpOperand &operand : op->getOpOperands()) {
      auto shaped = dyn_cast<ShapedType>(operand.get().getType());
      if (!shaped || shaped.hasStaticShape())
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      unsigned position = 0;
      for (auto [dim, size] : llvm::enumerate(shaped.getShape())) {
        if (!ShapedType::isDynamic(size))
          continue;
        auto loop = dyn_cast<AffineDimExpr>(map.getResult(dim));
        if (!loop)
          return op->emitError("a run-time size must be read by a loop of "
                               "its own (operand ")
                 << operand.getOperandNumber() << ", dimension " << dim << ")";
        auto [it, inserted] =
            positionOfLoop.try_emplace(loop.getPosition(), position);
        if (!inserted && it->second != position)
          return op->emitError("run-time sizes must keep their order in "
                               "every operand; operand ")
                 << operand.getOperandNumber() << " reads loop "
                 << loop.getPosition() << " at another position";
        ++position;
      }
    }
    return std::make_pair(*count, *holder);
  }

  /// A generic dispatch's schedule does not change with its sizes, so one
  /// dispatch serves them all; but a reduction over one run-time number of
  /// rows, which a thread a row would run serially, gets a static dispatch
  /// for one row (decode's norms), whose reduction splits across the GPU.
  LogicalResult bucketGeneric(func::FuncOp dispatch, SymbolTable &symbols) {
    FailureOr<std::pair<unsigned, unsigned>> sizes =
        checkGenericSizes(dispatch);
    if (failed(sizes))
      return failure();
    auto [count, holder] = *sizes;
    linalg::LinalgOp op = getOpWithRole(dispatch, "generic");
    if (count != 1 || op.getNumReductionLoops() == 0)
      return takeSizeArguments(dispatch, count, holder);
    auto type = cast<ShapedType>(dispatch.getArgumentTypes()[holder]);
    unsigned dim = llvm::find_if(type.getShape(), ShapedType::isDynamic) -
                   type.getShape().begin();
    const Bucket oneRow[] = {{1, 1}, {2, kMaxDynamicM}};
    return splitIntoBuckets(dispatch, oneRow, {holder, dim}, symbols);
  }

  /// One dispatch serves every size of a generic dispatch: each of its
  /// `count` run-time sizes becomes a trailing `index` argument, read by
  /// the caller from argument `holder`, which has them all.
  LogicalResult takeSizeArguments(func::FuncOp dispatch, unsigned count,
                                  unsigned holder) {
    Builder b(dispatch.getContext());
    dispatch->setAttr(kMRangeAttr, b.getDenseI64ArrayAttr({1, kMaxDynamicM}));
    SmallVector<Value> sizes;
    for (unsigned i = 0; i < count; ++i) {
      unsigned index = dispatch.getNumArguments();
      if (failed(dispatch.insertArgument(index, b.getIndexType(),
                                         DictionaryAttr(), dispatch.getLoc())))
        return failure();
      sizes.push_back(dispatch.getArgument(index));
    }
    readSizesFromArguments(dispatch, sizes);
    SmallVector<func::CallOp> calls = callsOf(dispatch);
    for (func::CallOp call : calls) {
      OpBuilder before(call);
      Value source = call.getOperand(holder);
      auto type = cast<RankedTensorType>(source.getType());
      SmallVector<Value> operands(call.getOperands());
      for (auto [dim, size] : llvm::enumerate(type.getShape()))
        if (ShapedType::isDynamic(size))
          operands.push_back(readSize(before, call, source, dim));
      call->setOperands(operands);
    }
    return success();
  }

  /// The calls of `dispatch` in the module.
  SmallVector<func::CallOp> callsOf(func::FuncOp dispatch) {
    SmallVector<func::CallOp> calls;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(dispatch, getOperation()))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (auto call = dyn_cast<func::CallOp>(use.getUser()))
          calls.push_back(call);
    return calls;
  }

  LogicalResult bucket(func::FuncOp dispatch, ArrayRef<Bucket> buckets,
                       SymbolTable &symbols) {
    FailureOr<std::pair<unsigned, unsigned>> mOperand =
        checkOnlyMDynamic(dispatch);
    if (failed(mOperand))
      return failure();
    return splitIntoBuckets(dispatch, buckets, *mOperand, symbols);
  }

  /// One clone of `dispatch` per bucket, its calls a host choice among
  /// them on dimension `mOperand.second` of argument `mOperand.first`.
  LogicalResult splitIntoBuckets(func::FuncOp dispatch,
                                 ArrayRef<Bucket> buckets,
                                 std::pair<unsigned, unsigned> mOperand,
                                 SymbolTable &symbols) {
    SmallVector<func::FuncOp> clones;
    for (Bucket bucket : buckets) {
      FailureOr<func::FuncOp> clone = cloneForBucket(dispatch, bucket, symbols);
      if (failed(clone))
        return failure();
      clones.push_back(*clone);
    }
    SmallVector<func::CallOp> calls = callsOf(dispatch);
    for (func::CallOp call : calls)
      replaceCall(call, clones, buckets, mOperand.first, mOperand.second);
    symbols.erase(dispatch);
    return success();
  }

  /// `scf.if M <= hi` per bucket, innermost last, each calling its bucket.
  void replaceCall(func::CallOp call, ArrayRef<func::FuncOp> clones,
                   ArrayRef<Bucket> buckets, unsigned mArg, unsigned mDim) {
    OpBuilder b(call);
    Location loc = call.getLoc();
    Value m = readSize(b, call, call.getOperand(mArg), mDim);
    std::function<SmallVector<Value>(OpBuilder &, size_t)> emit =
        [&](OpBuilder &b, size_t i) -> SmallVector<Value> {
      auto callBucket = [&](OpBuilder &b) {
        func::FuncOp clone = clones[i];
        SmallVector<Value> operands;
        for (auto [operand, type] :
             llvm::zip_first(call.getOperands(), clone.getArgumentTypes()))
          operands.push_back(
              operand.getType() == type
                  ? operand
                  : tensor::CastOp::create(b, loc, type, operand).getResult());
        if (clone.getNumArguments() > call.getNumOperands())
          operands.push_back(m);
        auto inner = func::CallOp::create(b, loc, clone, operands);
        SmallVector<Value> results;
        for (auto [result, type] :
             llvm::zip(inner.getResults(), call.getResultTypes()))
          results.push_back(
              result.getType() == type
                  ? Value(result)
                  : tensor::CastOp::create(b, loc, type, result).getResult());
        return results;
      };
      if (i + 1 == clones.size())
        return callBucket(b);
      Value bound = arith::ConstantIndexOp::create(b, loc, buckets[i].hi);
      Value inBucket =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, m, bound);
      auto thenBuilder = [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, callBucket(b));
      };
      auto elseBuilder = [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, emit(b, i + 1));
      };
      auto ifOp = scf::IfOp::create(
          b, loc, inBucket,
          function_ref<void(OpBuilder &, Location)>(thenBuilder),
          function_ref<void(OpBuilder &, Location)>(elseBuilder));
      return SmallVector<Value>(ifOp.getResults());
    };
    SmallVector<Value> results = emit(b, 0);
    call.replaceAllUsesWith(results);
    call.erase();
  }
};
} // namespace
