//===- AlignOperandRows.cpp - Zero-padded copies of misaligned operands ---===//
//
// A row of 5921 bf16 is 11842 bytes: TMA cannot stride over it and 16-byte
// cp.async cannot start on it. One grid-stride kernel per such operand
// copies it into rows rounded up to 16 bytes (or more: 128 puts each row
// on a cache line) with zeros after the data (one block per row), and the
// GEMM's views are rebuilt on the copy.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "GemmTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Threads of each copy block; a block copies one row.
constexpr int64_t kCopyThreads = 256;
/// Elements each thread loads before it stores them.
constexpr int64_t kCopyUnroll = 8;

class RowAligner : IndexBuilder {
public:
  RowAligner(RewriterBase &rewriter, linalg::LinalgOp gemm,
             gpu::LaunchOp launch, int64_t rowBytes)
      : IndexBuilder(rewriter, gemm.getLoc()), gemm(gemm), launch(launch),
        rowBytes(rowBytes) {}

  /// The padded copy of `root` (made once per buffer) and the view of it
  /// with `root`'s shape.
  Value alignedView(Value root);
  /// Rebuilds `chain` on `base` and returns what the GEMM should read.
  Value rebuild(const ViewChain &chain, Value base);

  /// Drops the whole-shape views that no rebuilt chain needed.
  void eraseUnusedViews() {
    for (auto &entry : views)
      if (entry.second.use_empty())
        b.eraseOp(entry.second.getDefiningOp());
  }

  SmallVector<gpu::LaunchOp> copies;

private:
  void emitCopy(Value source, Value padded);

  linalg::LinalgOp gemm;
  gpu::LaunchOp launch;
  int64_t rowBytes;
  DenseMap<Value, Value> views;
};

Value RowAligner::alignedView(Value root) {
  if (Value view = views.lookup(root))
    return view;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch);
  auto type = cast<MemRefType>(root.getType());
  int64_t rank = type.getRank();
  int64_t rowElements = rowBytes * 8 / type.getElementTypeBitWidth();
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = llvm::alignTo(shape.back(), rowElements);
  auto alloc = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, type.getElementType()));
  alloc->setAttr(kZeroPaddedAttr, b.getI64IntegerAttr(type.getShape().back()));
  emitCopy(root, alloc);
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  Value view =
      memref::SubViewOp::create(b, loc, alloc, offsets, sizes, strides);
  views[root] = view;
  return view;
}

void RowAligner::emitCopy(Value source, Value padded) {
  auto type = cast<MemRefType>(source.getType());
  int64_t rank = type.getRank();
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= type.getDimSize(d);
  int64_t columns = type.getShape().back();
  int64_t paddedColumns = cast<MemRefType>(padded.getType()).getShape().back();
  auto copy = gpu::LaunchOp::create(b, loc, c(rows), c(1), c(1),
                                    c(kCopyThreads), c(1), c(1));
  copies.push_back(copy);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&copy.getBody().front());
  // Row r of the flattened outer dimensions, back to their indices.
  SmallVector<Value> indices(rank);
  Value row = copy.getBlockIds().x;
  for (int64_t d = rank - 2; d >= 0; --d) {
    indices[d] = d == 0 ? row : rem(row, type.getDimSize(d));
    if (d > 0)
      row = div(row, type.getDimSize(d));
  }
  Type elem = type.getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
  // Each step loads kCopyUnroll elements before it stores any, so that
  // many loads are in flight (one at a time left the copy latency-bound).
  auto loop = scf::ForOp::create(b, loc, copy.getThreadIds().x,
                                 c(paddedColumns),
                                 c(kCopyThreads * kCopyUnroll));
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> columnsAt, values;
    for (int64_t u = 0; u < kCopyUnroll; ++u) {
      Value column = loop.getInductionVar();
      if (u > 0)
        column = add(column, c(u * kCopyThreads));
      indices.back() = column;
      auto inside = scf::IfOp::create(b, loc, TypeRange{elem},
                                      lt(column, c(columns)),
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard branch(b);
      b.setInsertionPointToStart(&inside.getThenRegion().front());
      scf::YieldOp::create(b, loc,
                           ValueRange{memref::LoadOp::create(b, loc, source,
                                                             indices)});
      b.setInsertionPointToStart(&inside.getElseRegion().front());
      scf::YieldOp::create(b, loc, ValueRange{zero});
      columnsAt.push_back(column);
      values.push_back(inside.getResult(0));
    }
    for (auto [column, value] : llvm::zip(columnsAt, values)) {
      indices.back() = column;
      auto inPadded = scf::IfOp::create(b, loc, lt(column, c(paddedColumns)),
                                        /*withElseRegion=*/false);
      OpBuilder::InsertionGuard branch(b);
      b.setInsertionPointToStart(&inPadded.getThenRegion().front());
      memref::StoreOp::create(b, loc, value, padded, indices);
    }
  }
  b.setInsertionPointToEnd(&copy.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

Value RowAligner::rebuild(const ViewChain &chain, Value base) {
  OpBuilder::InsertionGuard guard(b);
  Value current = base;
  for (Operation *op : llvm::reverse(chain.ops)) {
    auto sub = dyn_cast<memref::SubViewOp>(op);
    // Casts only relax a type; the rebuilt views keep their inferred ones.
    if (!sub)
      continue;
    b.setInsertionPoint(sub);
    auto sourceType = cast<MemRefType>(current.getType());
    MemRefType resultType =
        sub.getType().getRank() == sourceType.getRank()
            ? memref::SubViewOp::inferResultType(sourceType,
                                                 sub.getMixedOffsets(),
                                                 sub.getMixedSizes(),
                                                 sub.getMixedStrides())
            : memref::SubViewOp::inferRankReducedResultType(
                  sub.getType().getShape(), sourceType, sub.getMixedOffsets(),
                  sub.getMixedSizes(), sub.getMixedStrides());
    current = memref::SubViewOp::create(b, sub.getLoc(), resultType, current,
                                        sub.getMixedOffsets(),
                                        sub.getMixedSizes(),
                                        sub.getMixedStrides());
  }
  return current;
}

} // namespace

FailureOr<SmallVector<gpu::LaunchOp>>
vibegemm::alignOperandRows(RewriterBase &rewriter, Operation *target,
                           ArrayRef<int64_t> operands, int64_t rowBytes,
                           std::string &why) {
  auto gemm = dyn_cast<linalg::LinalgOp>(target);
  if (!gemm || gemm.getNumDpsInputs() != 2) {
    why = "the target is not a two-operand linalg op";
    return failure();
  }
  if (!gemm.hasPureBufferSemantics()) {
    why = "the GEMM must be bufferized first (it works on tensors)";
    return failure();
  }
  auto launch = gemm->getParentOfType<gpu::LaunchOp>();
  if (!launch) {
    why = "the GEMM is not inside a gpu.launch; map the block loop with "
          "gpu.map_forall_to_blocks first";
    return failure();
  }
  // Check every operand before changing anything.
  SmallVector<std::pair<OpOperand *, ViewChain>> misaligned;
  for (int64_t index : operands) {
    OpOperand *operand = gemm.getDpsInputOperand(index);
    ViewChain chain = traceViews(operand->get());
    auto type = dyn_cast<MemRefType>(chain.root.getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
        launch.getBody().isAncestor(chain.root.getParentRegion())) {
      why = "operands must view static buffers defined outside the gpu.launch";
      return failure();
    }
    int64_t bits = type.getElementTypeBitWidth();
    if (bits % 8 || 128 % bits) {
      why = "operand elements must be 1, 2, 4, 8 or 16 bytes";
      return failure();
    }
    if (type.getShape().back() * bits % 128)
      misaligned.push_back({operand, chain});
  }
  RowAligner aligner(rewriter, gemm, launch, rowBytes);
  for (auto &[operand, chain] : misaligned) {
    // The whole-shape view starts at 0 with unit strides, so subviews of it
    // are the same subviews of the padded buffer: taken there, a kernel
    // receives a whole buffer, as launch plans require.
    Value base = aligner.alignedView(chain.root);
    if (llvm::any_of(chain.ops, llvm::IsaPred<memref::SubViewOp>))
      base = base.getDefiningOp<memref::SubViewOp>().getSource();
    Value view = aligner.rebuild(chain, base);
    rewriter.modifyOpInPlace(gemm, [&] { operand->set(view); });
    for (Operation *op : chain.ops)
      if (op->use_empty())
        rewriter.eraseOp(op);
  }
  aligner.eraseUnusedViews();
  return aligner.copies;
}
