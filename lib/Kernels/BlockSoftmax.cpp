//===- BlockSoftmax.cpp - A block's softmax rows as block reductions ------===//
//
// Per row: every thread keeps a running max and a sum of exponentials
// rescaled to it (online softmax) over its share of the row, the block
// combines them through warp shuffles and a shared-memory table in a fixed
// order, and a second pass writes exp(x - max) / sum. The row is read
// twice; the second read comes mostly from L2.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "GemmTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

class BlockSoftmaxBuilder : IndexBuilder {
public:
  BlockSoftmaxBuilder(RewriterBase &rewriter, linalg::SoftmaxOp softmax,
                      const BlockSoftmaxOptions &options)
      : IndexBuilder(rewriter, softmax.getLoc()), softmax(softmax),
        opt(options) {}

  LogicalResult analyse(std::string &why);
  scf::ForOp build();

private:
  /// `view` without its leading unit dimensions: [rows, columns].
  Value rowsOf(Value view);
  /// Row `row` of `view` as a 1-D view (static unit stride when the
  /// buffer's strides are known, as vector accesses need).
  Value rowOf(Value view, Value row);
  /// `width` elements of a row from column `col`, as f32.
  Value load(Value rowView, Value col);
  void store(Value value, Value rowView, Value col);
  Value splat(Value scalar) {
    if (width == 1)
      return scalar;
    return vector::BroadcastOp::create(
        b, loc, VectorType::get({width}, b.getF32Type()), scalar);
  }
  Value sumOf(Value v) {
    return width == 1 ? v
                      : vector::ReductionOp::create(
                            b, loc, vector::CombiningKind::ADD, v);
  }
  Value maxOf(Value v) {
    return width == 1 ? v
                      : vector::ReductionOp::create(
                            b, loc, vector::CombiningKind::MAXNUMF, v);
  }
  /// The running (max, sum) pair of (m1, s1) and (m2, s2).
  std::pair<Value, Value> combine(Value m1, Value s1, Value m2, Value s2);
  Value exp(Value v) { return math::ExpOp::create(b, loc, v); }

  linalg::SoftmaxOp softmax;
  BlockSoftmaxOptions opt;
  gpu::LaunchOp launch;
  Value input, output;
  int64_t width = 1; // elements per load and store
  Value tid;
};

LogicalResult BlockSoftmaxBuilder::analyse(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  if (!softmax.hasPureBufferSemantics())
    return fail("the softmax must be bufferized first (it works on tensors)");
  launch = softmax->getParentOfType<gpu::LaunchOp>();
  if (!launch)
    return fail("the softmax is not inside a gpu.launch; map the block loop "
                "with gpu.map_forall_to_blocks first");
  if (failed(checkLaunchUntouched(launch, why)))
    return failure();
  input = softmax.getInput();
  output = softmax.getOutput();
  auto inType = cast<MemRefType>(input.getType());
  auto outType = cast<MemRefType>(output.getType());
  // Leading dimensions (a batch tiled to 1) must be of static size 1.
  int64_t rank = inType.getRank();
  if (rank < 2 || static_cast<int64_t>(softmax.getDimension()) != rank - 1 ||
      llvm::any_of(inType.getShape().drop_back(2),
                   [](int64_t d) { return d != 1; }))
    return fail("only softmax tiles over their last dimension, with any "
                "dimensions before the rows of size 1, are handled");
  for (Type t : {inType.getElementType(), outType.getElementType()})
    if (!(t.isF16() || t.isBF16() || t.isF32()))
      return fail("the softmax needs f16, bf16 or f32 elements");
  if (failed(upperBound(input, rank - 2)))
    return fail("the block's row count has no static bound");
  // 16-byte accesses where the rows allow them (for the wider type).
  int64_t bits = std::max(inType.getElementTypeBitWidth(),
                          outType.getElementTypeBitWidth());
  int64_t vector = 128 / bits;
  if (!inType.isDynamicDim(rank - 1) &&
      inType.getDimSize(rank - 1) % vector == 0 &&
      vectorsAlignedAlong(input, rank - 1, vector) &&
      vectorsAlignedAlong(output, rank - 1, vector))
    width = vector;
  return success();
}

Value BlockSoftmaxBuilder::rowsOf(Value view) {
  auto type = cast<MemRefType>(view.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return view;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  for (int64_t d : {rank - 2, rank - 1})
    sizes[d] = type.isDynamicDim(d) ? OpFoldResult(extent(view, d))
                                    : b.getIndexAttr(type.getDimSize(d));
  // Drop the leading dimensions, keeping the rows' own stride.
  auto full = cast<MemRefType>(
      memref::SubViewOp::inferResultType(type, offsets, sizes, strides));
  SmallVector<int64_t> fullStrides;
  int64_t offset;
  (void)full.getStridesAndOffset(fullStrides, offset);
  auto rowsType = MemRefType::get(
      full.getShape().take_back(2), full.getElementType(),
      StridedLayoutAttr::get(b.getContext(), offset,
                             ArrayRef(fullStrides).take_back(2)),
      full.getMemorySpace());
  return memref::SubViewOp::create(b, loc, rowsType, view, offsets, sizes,
                                   strides);
}

Value BlockSoftmaxBuilder::rowOf(Value view, Value row) {
  auto type = cast<MemRefType>(view.getType());
  Value columns = extent(view, 1);
  std::optional<int64_t> staticColumns = getConstantIntValue(columns);
  SmallVector<OpFoldResult> offsets{row, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes{
      b.getIndexAttr(1),
      staticColumns ? b.getIndexAttr(*staticColumns) : OpFoldResult(columns)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  MemRefType rowType = memref::SubViewOp::inferRankReducedResultType(
      {staticColumns ? *staticColumns : ShapedType::kDynamic}, type, offsets,
      sizes, strides);
  return memref::SubViewOp::create(b, loc, rowType, view, offsets, sizes,
                                   strides);
}

Value BlockSoftmaxBuilder::load(Value rowView, Value col) {
  Type elem = cast<MemRefType>(rowView.getType()).getElementType();
  Type f32 = b.getF32Type();
  Value v;
  if (width == 1) {
    v = memref::LoadOp::create(b, loc, rowView, ValueRange{col});
  } else {
    v = vector::LoadOp::create(b, loc, VectorType::get({width}, elem),
                               rowView, ValueRange{col}, /*nontemporal=*/false,
                               llvm::Align(width * elem.getIntOrFloatBitWidth() /
                                           8));
  }
  if (elem.isF32())
    return v;
  return arith::ExtFOp::create(
      b, loc, width == 1 ? f32 : Type(VectorType::get({width}, f32)), v);
}

void BlockSoftmaxBuilder::store(Value value, Value rowView, Value col) {
  Type elem = cast<MemRefType>(rowView.getType()).getElementType();
  if (!elem.isF32())
    value = arith::TruncFOp::create(
        b, loc, width == 1 ? elem : Type(VectorType::get({width}, elem)),
        value);
  if (width == 1) {
    memref::StoreOp::create(b, loc, value, rowView, ValueRange{col});
    return;
  }
  vector::StoreOp::create(b, loc, value, rowView, ValueRange{col},
                          /*nontemporal=*/false,
                          llvm::Align(width * elem.getIntOrFloatBitWidth() / 8));
}

std::pair<Value, Value> BlockSoftmaxBuilder::combine(Value m1, Value s1,
                                                     Value m2, Value s2) {
  Value m = arith::MaximumFOp::create(b, loc, m1, m2);
  Value s = arith::AddFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, s1,
                            exp(arith::SubFOp::create(b, loc, m1, m))),
      arith::MulFOp::create(b, loc, s2,
                            exp(arith::SubFOp::create(b, loc, m2, m))));
  return {m, s};
}

scf::ForOp BlockSoftmaxBuilder::build() {
  OpBuilder::InsertionGuard guard(b);
  int64_t warps = opt.threads / 32;
  shapeLaunch(b, launch, opt.threads, warps * 2 * 4);
  b.setInsertionPoint(softmax);
  // Known strides first: the trace behind them stops at rank changes.
  if (width > 1) {
    input = withKnownStrides(b, loc, input);
    output = withKnownStrides(b, loc, output);
  }
  input = rowsOf(input);
  output = rowsOf(output);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value table = sharedTable(b, loc, warps, 2);
  // The lowest finite value, not -inf: exp(m - m) of two -inf is NaN.
  Value lowest = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(std::numeric_limits<float>::lowest()));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value columns = extent(input, 1);
  Value stride = c(opt.threads * width);

  auto rows = scf::ForOp::create(b, loc, c(0), extent(input, 0), c(1));
  b.setInsertionPointToStart(rows.getBody());
  Value inRow = rowOf(input, rows.getInductionVar());
  Value outRow = rowOf(output, rows.getInductionVar());

  // Pass 1: each thread's running max and rescaled sum.
  auto scan = scf::ForOp::create(b, loc, mul(tid, c(width)), columns, stride,
                                 ValueRange{lowest, zero});
  {
    OpBuilder::InsertionGuard inScan(b);
    b.setInsertionPointToStart(scan.getBody());
    Value x = load(inRow, scan.getInductionVar());
    Value m = scan.getRegionIterArgs()[0], s = scan.getRegionIterArgs()[1];
    Value mNew = arith::MaximumFOp::create(b, loc, m, maxOf(x));
    Value chunkSum = sumOf(exp(arith::SubFOp::create(b, loc, x, splat(mNew))));
    Value rescaled = arith::MulFOp::create(
        b, loc, s, exp(arith::SubFOp::create(b, loc, m, mNew)));
    scf::YieldOp::create(
        b, loc,
        ValueRange{mNew, arith::AddFOp::create(b, loc, rescaled, chunkSum)});
  }
  Value m = scan.getResult(0), s = scan.getResult(1);
  for (int64_t offset = 16; offset > 0; offset /= 2)
    std::tie(m, s) = combine(m, s, shuffleXor(b, loc, m, offset),
                             shuffleXor(b, loc, s, offset));
  Value warp = div(tid, 32);
  {
    auto leader = scf::IfOp::create(b, loc, lt(rem(tid, 32), c(1)),
                                    /*withElse=*/false);
    OpBuilder::InsertionGuard inLeader(b);
    b.setInsertionPointToStart(&leader.getThenRegion().front());
    memref::StoreOp::create(b, loc, m, table, ValueRange{warp, c(0)});
    memref::StoreOp::create(b, loc, s, table, ValueRange{warp, c(1)});
  }
  gpu::BarrierOp::create(b, loc);
  // Every thread combines the warps' pairs in the same order.
  Value rowMax = memref::LoadOp::create(b, loc, table, ValueRange{c(0), c(0)});
  Value rowSum = memref::LoadOp::create(b, loc, table, ValueRange{c(0), c(1)});
  for (int64_t w = 1; w < warps; ++w)
    std::tie(rowMax, rowSum) = combine(
        rowMax, rowSum,
        memref::LoadOp::create(b, loc, table, ValueRange{c(w), c(0)}),
        memref::LoadOp::create(b, loc, table, ValueRange{c(w), c(1)}));
  // The table is read by all before the next row overwrites it.
  gpu::BarrierOp::create(b, loc);
  Value inverse = arith::DivFOp::create(
      b, loc, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0)),
      rowSum);

  // Pass 2: the normalised exponentials.
  auto write = scf::ForOp::create(b, loc, mul(tid, c(width)), columns, stride);
  {
    OpBuilder::InsertionGuard inWrite(b);
    b.setInsertionPointToStart(write.getBody());
    Value col = write.getInductionVar();
    Value x = load(inRow, col);
    Value y = arith::MulFOp::create(
        b, loc, exp(arith::SubFOp::create(b, loc, x, splat(rowMax))),
        splat(inverse));
    store(y, outRow, col);
  }
  b.eraseOp(softmax);
  return rows;
}

} // namespace

FailureOr<scf::ForOp> vibegemm::rewriteSoftmaxAsBlockReduce(
    RewriterBase &rewriter, Operation *target,
    const BlockSoftmaxOptions &options, std::string &why) {
  return rewriteWithBuilder<BlockSoftmaxBuilder, linalg::SoftmaxOp>(
      rewriter, target, options, why, "the target is not a linalg.softmax");
}
