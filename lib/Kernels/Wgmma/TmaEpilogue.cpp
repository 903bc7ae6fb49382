//===- TmaEpilogue.cpp - The wgmma kernel's TMA-store epilogue ------------===//
//
// tma_store: each consumer finishes its accumulators in registers, writes
// them in the output type to its 128-byte-swizzled staging tile, and its
// first thread stores the tile's boxes with TMA while the consumer goes on.
// tma_load_residual: the epilogue's residual comes in by TMA into that
// staging tile first.
//
//===----------------------------------------------------------------------===//

#include "WgmmaEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

SmallVector<Value> WgmmaEmitter::boxCoordinates(const TmaOperand &op, Value row,
                                                Value col) {
  // Innermost first: column, row, then the batch.
  SmallVector<Value> xy = {col, row};
  if (plan.batched)
    xy.push_back(origin(op, 0));
  return xy;
}

bool WgmmaEmitter::hoistResidualView() {
  Block &body = plan.launch.getBody().front();
  if (plan.gemm->getBlock() != &body)
    return false;
  // The subviews and casts inside the launch body that make the view,
  // the tile's own first.
  SmallVector<Operation *> viewOps;
  Value view = plan.residual.tile;
  while (Operation *def = view.getDefiningOp()) {
    if (def->getBlock() != &body)
      break;
    if (!isa<memref::SubViewOp, memref::CastOp>(def))
      return false;
    viewOps.push_back(def);
    view = def->getOperand(0);
  }
  for (Operation *op : viewOps)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &body &&
          !llvm::is_contained(viewOps, def) && !def->isBeforeInBlock(plan.gemm))
        return false;
    }
  for (Operation *op : llvm::reverse(viewOps))
    if (!op->isBeforeInBlock(plan.gemm))
      op->moveBefore(plan.gemm);
  // The consumers re-create the body in this order per tile.
  llvm::stable_sort(bodyOps, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  return true;
}

void WgmmaEmitter::loadResidual() {
  int64_t boxCols = plan.boxColumns();
  int64_t boxes = plan.rowsPerConsumer / 64 * (plan.blockN / boxCols);
  TmaOperand residual = retraced(plan.residual);
  unsigned rank = plan.outRank();
  Value rowOrigin = add(origin(residual, rank - 2), consumerFirstRow());
  Value colOrigin = origin(residual, rank - 1);
  Value stagingBase =
      add(c(plan.ringBytes()), mul(warpgroup, c(plan.consumerStagingBytes())));
  Value barrier = add(warpgroup, c(2 * opt.stages));
  auto ifLeader = scf::IfOp::create(b, loc, consumerLeader(),
                                    /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  // The staging tile is free once the last stores have read it.
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                       b.getUnitAttr());
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, loc, barriers, c(boxes * kOutBoxBytes), barrier, Value());
  for (int64_t box = 0; box < boxes; ++box) {
    int64_t g = box / (plan.blockN / boxCols),
            x = box % (plan.blockN / boxCols);
    nvgpu::TmaAsyncLoadOp::create(
        b, loc,
        sharedView(add(stagingBase, c(box * kOutBoxBytes)), plan.outBox(),
                   plan.outType),
        barriers, residualDescriptor,
        boxCoordinates(residual, add(rowOrigin, c(g * 64)),
                       add(colOrigin, c(x * boxCols))),
        barrier, Value(), Value());
  }
}

void WgmmaEmitter::waitResidual() {
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers,
                                         parity(residualRound), c(kWaitTicks),
                                         add(warpgroup, c(2 * opt.stages)));
}

void WgmmaEmitter::waitStores(bool readOnly) {
  auto ifLeader = scf::IfOp::create(b, loc, consumerLeader(),
                                    /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                       readOnly ? b.getUnitAttr() : UnitAttr());
}

void WgmmaEmitter::emitConsumerTmaEpilogue(scf::ForOp loop) {
  MLIRContext *ctx = b.getContext();
  int64_t columns = plan.tmaPassColumns, boxCols = plan.boxColumns();
  int64_t boxesPerPass = plan.rowsPerConsumer / 64 * (columns / boxCols);
  Value stagingBase =
      add(c(plan.ringBytes()), mul(warpgroup, c(plan.consumerStagingBytes())));
  Value staging = sharedView(
      stagingBase, {plan.consumerStagingBytes() / plan.outBytes}, plan.outType);
  Value barrierId = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), add(warpgroup, c(kFirstConsumerBarrier)));
  auto consumerBarrier = [&]() { namedBarrier(barrierId, kWarpgroup); };
  // Thread (lane l, warp w) holds rows 16w + l / 4 (+ 8) of each 64-row
  // group: rows r and r + 8 share r % 8 = l / 4, the swizzle's XOR.
  auto [row, colBase] = accumulatorOrigin();
  Value swizzle = rem(row, 8);
  Value firstRow = consumerFirstRow();
  TmaOperand out = retraced(plan.out);
  unsigned rank = plan.outRank();
  Value rowOrigin = add(origin(out, rank - 2), firstRow);
  Value colOrigin = origin(out, rank - 1);
  // Past a ragged tile's edge the epilogue's loads are clamped inside the
  // tile; TMA drops the values there, at the buffer's edge.
  std::optional<int64_t> m = getConstantIntValue(mSize);
  std::optional<int64_t> n = getConstantIntValue(nSize);
  auto clamp = [&](Value index, Value size, bool whole) {
    if (whole)
      return index;
    return arith::MinUIOp::create(b, loc, index,
                                  arith::SubIOp::create(b, loc, size, c(1)))
        .getResult();
  };
  bool wholeRows = m && *m == plan.blockM, wholeCols = n && *n == plan.blockN;
  // An empty tile (a grid larger than the output) has nothing to clamp to:
  // its consumer skips the epilogue (the condition is the whole
  // warpgroup's, so its barriers stay matched).
  OpBuilder::InsertionGuard nonEmpty(b);
  int64_t passes = plan.blockN / columns;
  if (!wholeRows || !wholeCols) {
    Value rows = cmp(arith::CmpIPredicate::ugt, mSize, c(0));
    Value cols = cmp(arith::CmpIPredicate::ugt, nSize, c(0));
    auto ifAny = scf::IfOp::create(b, loc, both(rows, cols),
                                   /*withElse=*/opt.tmaLoadResidual);
    if (opt.tmaLoadResidual) {
      // An empty tile still takes its residual, so the barrier's phases
      // stay counted per tile; the barrier keeps every thread within a
      // phase of the leader, who loads the next tile's.
      OpBuilder::InsertionGuard empty(b);
      b.setInsertionPointToStart(&ifAny.getElseRegion().front());
      if (!prefetchResidual)
        loadResidual();
      waitResidual();
      consumerBarrier();
    }
    b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  }
  auto pairType = VectorType::get({2}, plan.outType);
  for (int64_t pass = 0; pass < passes; ++pass) {
    // The last pass's stores have read the staging tile.
    waitStores(/*readOnly=*/true);
    consumerBarrier();
    // tma_load_residual has one pass (see analyseTmaLoadResidual).
    if (opt.tmaLoadResidual) {
      if (!prefetchResidual)
        loadResidual();
      waitResidual();
    }
    for (int64_t g = 0; g < plan.rowsPerConsumer / 64; ++g)
      for (int64_t j = 0; j < columns / 8; ++j)
        for (int64_t half = 0; half < 2; ++half) {
          Value tileRow = add(firstRow, add(row, c(g * 64 + half * 8)));
          Value tileCol = add(colBase, c(pass * columns + 8 * j));
          // Byte (r, x) of a 64-row box sits at r * 128 + x with x's
          // 16-byte chunk XORed by r % 8 (TMA's 128-byte swizzle).
          int64_t box = g * (columns / boxCols) + 8 * j / boxCols;
          Value byte = mul(add(colBase, c(8 * j % boxCols)), c(plan.outBytes));
          Value chunk = arith::XOrIOp::create(b, loc, div(byte, 16), swizzle);
          Value offset = add(
              add(c(box * kOutBoxBytes), mul(add(row, c(half * 8)), c(128))),
              add(mul(chunk, c(16)), rem(byte, 16)));
          Value index = div(offset, plan.outBytes);
          // The residual's pair sits where this thread's results go.
          Value residualPair;
          if (opt.tmaLoadResidual)
            residualPair = vector::LoadOp::create(
                b, loc, pairType, staging, ValueRange{index},
                /*nontemporal=*/false, llvm::Align(2 * plan.outBytes));
          SmallVector<Value, 2> values;
          for (int64_t e = 0; e < 2; ++e) {
            Value acc = LLVM::ExtractValueOp::create(
                b, loc, loop.getResult(g),
                4 * (pass * columns / 8 + j) + 2 * half + e);
            DenseMap<Value, Value> preloaded;
            if (residualPair)
              preloaded[plan.residual.tile] =
                  vector::ExtractOp::create(b, loc, residualPair, e);
            Value value;
            for (auto [buffer, result] :
                 finish(clamp(tileRow, mSize, wholeRows),
                        clamp(add(tileCol, c(e)), nSize, wholeCols), acc,
                        &preloaded))
              if (buffer == out.tile)
                value = result;
            values.push_back(value);
          }
          vector::StoreOp::create(
              b, loc, vector::FromElementsOp::create(b, loc, pairType, values),
              staging, ValueRange{index},
              /*nontemporal=*/false, llvm::Align(2 * plan.outBytes));
        }
    // The writes reach the async proxy before the leader's stores read.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    consumerBarrier();
    auto ifLeader = scf::IfOp::create(b, loc, consumerLeader(),
                                      /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    for (int64_t box = 0; box < boxesPerPass; ++box) {
      int64_t g = box / (columns / boxCols), x = box % (columns / boxCols);
      Value view = sharedView(add(stagingBase, c(box * kOutBoxBytes)),
                              plan.outBox(), plan.outType);
      nvgpu::TmaAsyncStoreOp::create(
          b, loc, view, outDescriptor,
          boxCoordinates(out, add(rowOrigin, c(g * 64)),
                         add(colOrigin, c(pass * columns + x * boxCols))),
          Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
}
