//===- Epilogue.cpp - The wgmma kernel's staged epilogues -----------------===//
//
// The accumulators go through a padded shared-memory staging tile, so the
// elementwise epilogue reads rows 4 values per thread, conflict-free, and
// stores them coalesced: once for the whole block tile, or per consumer
// in passes of columns in a persistent kernel.
//
//===----------------------------------------------------------------------===//

#include "WgmmaEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

std::pair<Value, Value> WgmmaEmitter::accumulatorOrigin() {
  // Accumulator layout of m64nNk16: warp w of the warpgroup holds rows
  // 16w + lane / 4 (+ 8), values 4j..4j+3 columns 8j + 2 (lane % 4) (+ 1).
  Value lane = rem(tid, 32);
  Value row = add(mul(rem(div(tid, 32), 4), c(16)), div(lane, 4));
  Value colBase = mul(rem(lane, 4), c(2));
  return {row, colBase};
}

void WgmmaEmitter::stageAccumulators(scf::ForOp loop) {
  Type f32 = b.getF32Type();
  // Other consumers may still read the last slots, which the staging tile
  // overlays.
  if (opt.consumers > 1)
    namedBarrier(arith::ConstantIntOp::create(b, loc, kConsumersBarrier, 32),
                 kWarpgroup * opt.consumers);
  Value staging = sharedView(c(0), {plan.blockM, plan.blockN + kStagePad}, f32);
  auto [row, colBase] = accumulatorOrigin();
  Value rowBase = add(mul(warpgroup, c(plan.rowsPerConsumer)), row);
  stagePairs(loop, staging, rowBase, colBase, 0, plan.blockN);
}

void WgmmaEmitter::stagePairs(scf::ForOp loop, Value staging, Value rowBase,
                              Value colBase, int64_t firstColumn,
                              int64_t columns) {
  auto pairType = VectorType::get({2}, b.getF32Type());
  for (int64_t g = 0; g < plan.rowsPerConsumer / 64; ++g)
    for (int64_t j = firstColumn / 8; j < (firstColumn + columns) / 8; ++j)
      for (int64_t half = 0; half < 2; ++half) {
        int64_t index = 4 * j + 2 * half;
        Value first =
            LLVM::ExtractValueOp::create(b, loc, loop.getResult(g), index);
        Value second =
            LLVM::ExtractValueOp::create(b, loc, loop.getResult(g), index + 1);
        Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                                    ValueRange{first, second});
        vector::StoreOp::create(
            b, loc, pair, staging,
            ValueRange{add(rowBase, c(g * 64 + half * 8)),
                       add(colBase, c(8 * j - firstColumn))},
            /*nontemporal=*/false, llvm::Align(8));
      }
}

void WgmmaEmitter::finishStaged(Value staging, int64_t rows, int64_t columns,
                                Value firstThread, int64_t threadCount,
                                Value rowOrigin, int64_t colOrigin) {
  int64_t chunksPerRow = columns / kStoreChunk;
  auto loop = scf::ForOp::create(b, loc, firstThread, c(rows * chunksPerRow),
                                 c(threadCount));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value i = loop.getInductionVar();
  Value row = div(i, chunksPerRow);
  Value col = mul(rem(i, chunksPerRow), c(kStoreChunk));
  Value chunk = vector::LoadOp::create(
      b, loc, VectorType::get({kStoreChunk}, b.getF32Type()), staging,
      ValueRange{row, col});
  if (rowOrigin)
    row = add(rowOrigin, row);
  if (colOrigin)
    col = add(col, c(colOrigin));
  storeColumns(row, col, kStoreChunk, [&](int64_t e) {
    return vector::ExtractOp::create(b, loc, chunk, e).getResult();
  });
}

void WgmmaEmitter::emitConsumerEpilogue(scf::ForOp loop) {
  Type f32 = b.getF32Type();
  int64_t columns = plan.passColumns();
  int64_t pitch = columns + kStagePad;
  Value staging = sharedView(
      add(c(plan.ringBytes()), mul(warpgroup, c(plan.consumerStagingBytes()))),
      {plan.rowsPerConsumer, pitch}, f32);
  Value localThread = rem(tid, kWarpgroup);
  // Rows relative to this consumer's first.
  auto [rowBase, colBase] = accumulatorOrigin();
  Value firstRow = consumerFirstRow();
  Value barrierId = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), add(warpgroup, c(kFirstConsumerBarrier)));
  auto consumerBarrier = [&]() { namedBarrier(barrierId, kWarpgroup); };
  for (int64_t pass = 0; pass < plan.blockN / columns; ++pass) {
    // The last pass's (or tile's) reads of the staging tile are done.
    consumerBarrier();
    stagePairs(loop, staging, rowBase, colBase, pass * columns, columns);
    consumerBarrier();
    finishStaged(staging, plan.rowsPerConsumer, columns, localThread,
                 kWarpgroup, firstRow, pass * columns);
  }
}

SmallVector<std::pair<Value, Value>>
WgmmaEmitter::finish(Value row, Value col, Value staged,
                     const DenseMap<Value, Value> *preloaded) {
  Value value = staged;
  if (plan.chain.init) {
    Value fill = plan.chain.init.getInputs()[0];
    if (!matchPattern(fill, m_AnyZeroFloat()))
      value = arith::AddFOp::create(b, loc, value, fill);
  } else {
    // No fill: the GEMM accumulates into what the buffer holds.
    Value old = memref::LoadOp::create(b, loc, plan.chain.accumulator,
                                       outputIndices(plan.output, row, col));
    value = arith::AddFOp::create(b, loc, value, old);
  }
  return evaluateEpilogue(b, loc, plan.chain,
                          outputIndices(plan.output, row, col), value,
                          preloaded);
}

void WgmmaEmitter::emitEpilogue() {
  Value staging =
      sharedView(c(0), {plan.blockM, plan.blockN + kStagePad}, b.getF32Type());
  finishStaged(staging, plan.blockM, plan.blockN, tid, plan.threads(), Value(),
               0);
}

void WgmmaEmitter::storeColumns(Value row, Value col, int64_t count,
                                function_ref<Value(int64_t)> element) {
  unsigned nPos = *resultPosition(plan.output.map, plan.nDim);
  OpBuilder::InsertionGuard guard(b);
  // All columns inside the problem: one vector store per buffer.
  auto storeAll = [&]() {
    SmallVector<SmallVector<std::pair<Value, Value>>> results;
    for (int64_t e = 0; e < count; ++e)
      results.push_back(finish(row, add(col, c(e)), element(e)));
    for (size_t pos = 0; pos < results.front().size(); ++pos) {
      Value buffer = results.front()[pos].first;
      if (isBlockLocalAllocation(buffer))
        continue;
      SmallVector<Value> values;
      for (auto &r : results)
        values.push_back(r[pos].second);
      if (canStoreVectors(buffer, nPos, count)) {
        Type type = values.front().getType();
        Value vec = vector::FromElementsOp::create(
            b, loc, VectorType::get({count}, type), values);
        int64_t bytes = count * type.getIntOrFloatBitWidth() / 8;
        vector::StoreOp::create(
            b, loc, vec, buffer, outputIndices(plan.output, row, col),
            /*nontemporal=*/false, llvm::Align(std::min<int64_t>(bytes, 16)));
        continue;
      }
      for (auto [e, v] : llvm::enumerate(values))
        memref::StoreOp::create(
            b, loc, v, buffer, outputIndices(plan.output, row, add(col, c(e))));
    }
  };
  std::optional<int64_t> m = getConstantIntValue(mSize);
  std::optional<int64_t> n = getConstantIntValue(nSize);
  if (m && *m == plan.blockM && n && *n == plan.blockN) {
    storeAll();
    return;
  }
  // At a ragged edge: columns wholly inside still go out as vectors, the
  // rest element by element.
  Value rowIn = cmp(arith::CmpIPredicate::ult, row, mSize);
  Value whole =
      both(rowIn, cmp(arith::CmpIPredicate::ule, add(col, c(count)), nSize));
  auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
  b.setInsertionPointToStart(&ifWhole.getThenRegion().front());
  storeAll();
  b.setInsertionPointToStart(&ifWhole.getElseRegion().front());
  for (int64_t e = 0; e < count; ++e) {
    Value colE = add(col, c(e));
    Value in = both(rowIn, cmp(arith::CmpIPredicate::ult, colE, nSize));
    auto ifIn = scf::IfOp::create(b, loc, in, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifIn.getThenRegion().front());
    for (auto [buffer, value] : finish(row, colE, element(e)))
      if (!isBlockLocalAllocation(buffer))
        memref::StoreOp::create(b, loc, value, buffer,
                                outputIndices(plan.output, row, colE));
  }
}
