//===- BlockReduceGemm.cpp - A small GEMM tile as a block reduction -------===//
//
// The threads of a block split K into 16-byte chunks (element by element
// where the operands' rows are not aligned), each accumulates every output
// of the tile, and warp shuffles plus a shared-memory table reduce the
// partial sums in a fixed order; one thread per output then runs the
// epilogue chain and stores.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "GemmTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Chunks each thread has in flight per iteration of the K loop.
constexpr uint64_t kUnroll = 4;

/// One operand as the kernel reads it: a 1-D view along K per tile row.
struct DotOperand {
  Value mem;
  AffineMap map;
  unsigned outerDim = 0; // m for A, n for B
  unsigned outerPos = 0, kPos = 0;
  int64_t outerTile = 0; // static upper bound of the outer extent
  Value outerSize;
  SmallVector<Value> rows;

  bool ragged() const {
    std::optional<int64_t> size = getConstantIntValue(outerSize);
    return !size || *size != outerTile;
  }
};

class BlockReduceBuilder : IndexBuilder {
public:
  BlockReduceBuilder(RewriterBase &rewriter, linalg::LinalgOp gemm,
                     const BlockReduceOptions &options)
      : IndexBuilder(rewriter, gemm.getLoc()), gemm(gemm), opt(options) {}

  LogicalResult analyse(std::string &why);
  scf::ForOp build();

private:
  LogicalResult analyseOperand(DotOperand &op, unsigned operand,
                               unsigned outerDim, std::string &why);
  /// The view along K of outer index `outer`, clamped into the tile: rows
  /// past a ragged edge read valid memory and their sums are not stored.
  Value rowView(DotOperand &op, int64_t outer);
  /// `count` elements at K position `k` of a row view, as f32.
  Value loadAt(Value row, Value k, int64_t count);
  Value multiplyAdd(Value x, Value y, Value acc);
  /// Sums of `values` over each warp.
  SmallVector<Value> reduceInWarps(ArrayRef<Value> values);
  /// One thread per output: the warps' sums, the initial value, the chain,
  /// the stores.
  void emitEpilogue(Value table);

  linalg::LinalgOp gemm;
  BlockReduceOptions opt;
  BlockGemm facts;
  DotOperand lhs, rhs;
  Value kSize, tid;
  int64_t width = 1; // elements per load
  EpilogueChain chain;
};

LogicalResult BlockReduceBuilder::analyseOperand(DotOperand &op,
                                                 unsigned operand,
                                                 unsigned outerDim,
                                                 std::string &why) {
  op.mem = gemm.getDpsInputs()[operand];
  op.map = gemm.getIndexingMapsArray()[operand];
  op.outerDim = outerDim;
  std::optional<unsigned> outer = resultPosition(op.map, outerDim);
  std::optional<unsigned> k = resultPosition(op.map, facts.kDim);
  if (!outer || !k || !op.map.isProjectedPermutation()) {
    why = "an operand is indexed other than by a permutation of its loops";
    return failure();
  }
  op.outerPos = *outer;
  op.kPos = *k;
  FailureOr<int64_t> bound = upperBound(op.mem, op.outerPos);
  if (failed(bound)) {
    why = "the block tile's M or N extent has no static bound";
    return failure();
  }
  op.outerTile = *bound;
  for (unsigned batch : facts.batchDims) {
    std::optional<unsigned> pos = resultPosition(op.map, batch);
    FailureOr<int64_t> extent =
        pos ? upperBound(op.mem, *pos) : FailureOr<int64_t>(failure());
    if (failed(extent) || *extent != 1) {
      why = "the batch dimension must be tiled to 1";
      return failure();
    }
  }
  return success();
}

LogicalResult BlockReduceBuilder::analyse(std::string &why) {
  FailureOr<BlockGemm> analysed =
      analyseBlockGemm(gemm, "the block reduction", why);
  if (failed(analysed))
    return failure();
  facts = *analysed;
  if (failed(checkLaunchUntouched(facts.launch, why)) ||
      failed(analyseOperand(lhs, 0, facts.mDim, why)) ||
      failed(analyseOperand(rhs, 1, facts.nDim, why)))
    return failure();
  int64_t outputs = lhs.outerTile * rhs.outerTile;
  if (outputs > kMaxBlockReduceOutputs) {
    why = llvm::formatv("the block tile holds {0} outputs; at most {1} (every "
                        "thread keeps a partial sum of each)",
                        outputs, kMaxBlockReduceOutputs)
              .str();
    return failure();
  }
  FailureOr<EpilogueChain> collected = collectEpilogue(gemm, why);
  if (failed(collected))
    return failure();
  chain = *collected;
  // 16-byte loads where both operands' rows allow them.
  int64_t vector = 128 / facts.elementType.getIntOrFloatBitWidth();
  if (vectorsAlignedAlong(lhs.mem, lhs.kPos, vector) &&
      vectorsAlignedAlong(rhs.mem, rhs.kPos, vector))
    width = vector;
  return success();
}

Value BlockReduceBuilder::rowView(DotOperand &op, int64_t outer) {
  auto type = cast<MemRefType>(op.mem.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  Value index = c(outer);
  if (outer > 0 && op.ragged())
    index = arith::MinUIOp::create(b, loc, index,
                                   arith::SubIOp::create(b, loc, op.outerSize,
                                                         c(1)));
  offsets[op.outerPos] = outer > 0 && op.ragged() ? OpFoldResult(index)
                                                  : b.getIndexAttr(outer);
  std::optional<int64_t> staticK = getConstantIntValue(kSize);
  sizes[op.kPos] = staticK ? b.getIndexAttr(*staticK) : OpFoldResult(kSize);
  MemRefType rowType = memref::SubViewOp::inferRankReducedResultType(
      {staticK ? *staticK : ShapedType::kDynamic}, type, offsets, sizes,
      strides);
  return memref::SubViewOp::create(b, loc, rowType, op.mem, offsets, sizes,
                                   strides);
}

Value BlockReduceBuilder::loadAt(Value row, Value k, int64_t count) {
  Type f32 = b.getF32Type();
  if (count == 1) {
    Value v = memref::LoadOp::create(b, loc, row, k);
    return facts.elementType.isF32() ? v
                                     : arith::ExtFOp::create(b, loc, f32, v);
  }
  auto type = VectorType::get({count}, facts.elementType);
  Value v = vector::LoadOp::create(b, loc, type, row, ValueRange{k},
                                   /*nontemporal=*/false, llvm::Align(16));
  if (facts.elementType.isF32())
    return v;
  return arith::ExtFOp::create(b, loc, VectorType::get({count}, f32), v);
}

Value BlockReduceBuilder::multiplyAdd(Value x, Value y, Value acc) {
  auto contract = arith::FastMathFlags::contract;
  Value product = arith::MulFOp::create(b, loc, x, y, contract);
  return arith::AddFOp::create(b, loc, acc, product, contract);
}

SmallVector<Value> BlockReduceBuilder::reduceInWarps(ArrayRef<Value> values) {
  SmallVector<Value> sums(values);
  for (int64_t offset = 16; offset > 0; offset /= 2)
    for (Value &sum : sums)
      sum = arith::AddFOp::create(b, loc, sum,
                                  shuffleXor(b, loc, sum, offset));
  return sums;
}

void BlockReduceBuilder::emitEpilogue(Value table) {
  int64_t warps = opt.threads / 32;
  int64_t outputs = lhs.outerTile * rhs.outerTile;
  auto owner = scf::IfOp::create(b, loc, lt(tid, c(outputs)),
                                 /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&owner.getThenRegion().front());
  // The warps' sums in a fixed order: the result does not depend on
  // scheduling.
  Value total = memref::LoadOp::create(b, loc, table, ValueRange{c(0), tid});
  for (int64_t w = 1; w < warps; ++w)
    total = arith::AddFOp::create(
        b, loc, total,
        memref::LoadOp::create(b, loc, table, ValueRange{c(w), tid}));
  Value i = div(tid, rhs.outerTile), j = rem(tid, rhs.outerTile);
  AffineMap accMap = gemm.getIndexingMapsArray()[2];
  SmallVector<Value> indices;
  for (AffineExpr expr : accMap.getResults()) {
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    indices.push_back(dim == facts.mDim ? i : dim == facts.nDim ? j : c(0));
  }
  Value inBounds = insideBlockTile(lhs, rhs, i, j);
  if (inBounds) {
    auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  Value initial =
      chain.init ? chain.init.getInputs()[0]
                 : memref::LoadOp::create(b, loc, chain.accumulator, indices)
                       .getResult();
  Value value = arith::AddFOp::create(b, loc, initial, total);
  for (auto [buffer, result] :
       evaluateEpilogue(b, loc, chain, indices, value))
    if (!isBlockLocalAllocation(buffer))
      memref::StoreOp::create(b, loc, result, buffer, indices);
}

scf::ForOp BlockReduceBuilder::build() {
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch = facts.launch;
  int64_t warps = opt.threads / 32;
  int64_t outputs = lhs.outerTile * rhs.outerTile;
  shapeLaunch(b, launch, opt.threads, warps * outputs * 4);

  b.setInsertionPoint(gemm);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value table = sharedTable(b, loc, warps, outputs);
  lhs.outerSize = extent(lhs.mem, lhs.outerPos);
  rhs.outerSize = extent(rhs.mem, rhs.outerPos);
  kSize = extent(lhs.mem, lhs.kPos);
  // Static strides, so the rows taken below have a unit stride vector
  // loads accept.
  for (DotOperand *op : {&lhs, &rhs}) {
    if (width > 1)
      op->mem = withKnownStrides(b, loc, op->mem);
    for (int64_t outer = 0; outer < op->outerTile; ++outer)
      op->rows.push_back(rowView(*op, outer));
  }

  // Each thread takes every `threads`-th chunk of K.
  Type f32 = b.getF32Type();
  Type accType = width > 1 ? Type(VectorType::get({width}, f32)) : f32;
  TypedAttr zeroAttr =
      width > 1 ? TypedAttr(DenseElementsAttr::get(cast<ShapedType>(accType),
                                                   b.getF32FloatAttr(0.0)))
                : TypedAttr(b.getF32FloatAttr(0.0));
  Value zero = arith::ConstantOp::create(b, loc, zeroAttr);
  SmallVector<Value> init(outputs, zero);
  Value chunks = width > 1 ? div(kSize, width) : kSize;
  auto loop = scf::ForOp::create(b, loc, tid, chunks, c(opt.threads), init);
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k = width > 1 ? mul(loop.getInductionVar(), c(width))
                        : loop.getInductionVar();
    SmallVector<Value> a, bv, acc(loop.getRegionIterArgs());
    for (Value row : lhs.rows)
      a.push_back(loadAt(row, k, width));
    for (Value row : rhs.rows)
      bv.push_back(loadAt(row, k, width));
    for (int64_t i = 0; i < lhs.outerTile; ++i)
      for (int64_t j = 0; j < rhs.outerTile; ++j)
        acc[i * rhs.outerTile + j] =
            multiplyAdd(a[i], bv[j], acc[i * rhs.outerTile + j]);
    scf::YieldOp::create(b, loc, acc);
  }
  SmallVector<Value> sums(loop.getResults());
  if (width > 1)
    for (Value &sum : sums)
      sum = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                        sum);
  // K past the last whole chunk, element by element.
  std::optional<int64_t> staticK = getConstantIntValue(kSize);
  if (width > 1 && (!staticK || *staticK % width)) {
    auto tail = scf::ForOp::create(b, loc, add(mul(chunks, c(width)), tid),
                                   kSize, c(opt.threads), sums);
    OpBuilder::InsertionGuard inTail(b);
    b.setInsertionPointToStart(tail.getBody());
    SmallVector<Value> acc(tail.getRegionIterArgs());
    for (int64_t i = 0; i < lhs.outerTile; ++i)
      for (int64_t j = 0; j < rhs.outerTile; ++j) {
        Value x = loadAt(lhs.rows[i], tail.getInductionVar(), 1);
        Value y = loadAt(rhs.rows[j], tail.getInductionVar(), 1);
        acc[i * rhs.outerTile + j] =
            multiplyAdd(x, y, acc[i * rhs.outerTile + j]);
      }
    scf::YieldOp::create(b, loc, acc);
    b.setInsertionPointAfter(tail);
    sums.assign(tail.getResults().begin(), tail.getResults().end());
  }

  sums = reduceInWarps(sums);
  {
    auto leader = scf::IfOp::create(b, loc, lt(rem(tid, 32), c(1)),
                                    /*withElse=*/false);
    OpBuilder::InsertionGuard inLeader(b);
    b.setInsertionPointToStart(&leader.getThenRegion().front());
    for (auto [o, sum] : llvm::enumerate(sums))
      memref::StoreOp::create(b, loc, sum, table,
                              ValueRange{div(tid, 32), c(o)});
  }
  gpu::BarrierOp::create(b, loc);
  setEpilogueInsertionPoint(b, chain);
  emitEpilogue(table);
  eraseGemmAndEpilogue(b, gemm, chain);
  // More loads in flight per thread.
  (void)loopUnrollByFactor(loop, kUnroll);
  return loop;
}

} // namespace

FailureOr<scf::ForOp> vibegemm::rewriteGemmAsBlockReduce(RewriterBase &rewriter,
                                                  Operation *target,
                                                  const BlockReduceOptions &options,
                                                  std::string &why) {
  return rewriteWithBuilder<BlockReduceBuilder>(rewriter, target, options, why);
}
