//===- Persistent.cpp - The wgmma kernel's persistent tile loops ----------===//
//
// A fixed number of blocks loop over the tiles. Each role runs its own tile
// loop, and the ring's slots and phases count on across tiles, so the
// producer loads the next tile while the consumers finish this one, each
// through its own staging tile past the ring (the shared one of a
// non-persistent kernel would overlay the ring the producer is refilling).
// Ping-pong: the two consumers own alternate tiles and take turns at the
// main loop; in clusters both blocks of a cluster walk the same tiles, so
// the consumers that share a multicast slot own the same tile pair.
//
//===----------------------------------------------------------------------===//

#include "WgmmaEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

void WgmmaEmitter::shapePersistentGrid() {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(plan.launch);
  // Clusters: grid x counts the clusters, y the blocks in each.
  Value grid = c(plan.blocks / opt.clusterRows), rows = c(opt.clusterRows),
        one = c(1);
  b.modifyOpInPlace(plan.launch, [&] {
    plan.launch.getGridSizeXMutable().assign(grid);
    plan.launch.getGridSizeYMutable().assign(rows);
    plan.launch.getGridSizeZMutable().assign(one);
  });
}

void WgmmaEmitter::emitPersistentProducer(Value kTiles) {
  // The producer recomputes each tile's origins from a copy of what the
  // launch body derives them from.
  auto [tiles, kStart] = emitTileLoop();
  for (Operation *op : bodyOps)
    if (plan.producerSlice.contains(op) &&
        !isa<gpu::BlockIdOp, gpu::GridDimOp>(op))
      b.clone(*op, tileValues);
  emitProducer(kTiles, kStart);
  tileValues.clear();
}

scf::ForOp WgmmaEmitter::emitPersistentConsumer(Value kTiles) {
  // The consumers run the launch body itself once per tile.
  auto [tiles, kStart] = emitTileLoop(/*alternate=*/opt.pingPong);
  Operation *end = tiles.getBody()->getTerminator();
  for (Operation *op : bodyOps) {
    op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands())
        if (Value value = tileValues.lookupOrNull(operand.get()))
          b.modifyOpInPlace(nested, [&] { operand.set(value); });
    });
    b.moveOpBefore(op, end);
  }
  tileValues.clear();
  b.setInsertionPoint(plan.gemm);
  tileExtents();
  if (opt.tmaLoadResidual) {
    // Each of this consumer's tiles completes its residual barrier once;
    // ping-pong consumers take every other tile.
    Value sequence = div(kStart, plan.kTileCount);
    residualRound = opt.pingPong ? div(sequence, 2) : sequence;
    if (prefetchResidual)
      loadResidual();
  }
  if (opt.pingPong)
    waitForTurn(tiles.getInductionVar());
  scf::ForOp loop = emitConsumer(kTiles, kStart);
  if (opt.pingPong)
    passTurn(tiles.getInductionVar());
  setEpilogueInsertionPoint(b, plan.chain);
  if (opt.tmaStore) {
    emitConsumerTmaEpilogue(loop);
    // The last tile's stores complete before the block exits.
    b.setInsertionPointAfter(tiles);
    waitStores(/*readOnly=*/false);
  } else {
    emitConsumerEpilogue(loop);
  }
  return loop;
}

void WgmmaEmitter::approximateBranchingErf() {
  // libdevice's erff branches on |x|. In a persistent kernel the epilogue
  // sits between one tile's wgmmas and the next's, and ptxas then
  // serialises every wgmma of the kernel (C7520: "compiler-inserted WG.AR
  // in divergent path"); MLIR's polynomial form (error ~2.5e-7) selects
  // instead. (libdevice's tanhf does not branch.)
  SmallVector<Operation *> ops;
  plan.launch.walk([&](math::ErfOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  RewritePatternSet patterns(b.getContext());
  populatePolynomialApproximateErfPattern(patterns);
  (void)applyOpPatternsGreedily(ops, std::move(patterns));
}

void WgmmaEmitter::waitForTurn(Value t) {
  // The first consumer's first tile waits for no one.
  Value first = cmp(arith::CmpIPredicate::eq, t, plan.launch.getBlockIds().x);
  Value waits = arith::OrIOp::create(
      b, loc, cmp(arith::CmpIPredicate::ne, warpgroup, c(0)),
      arith::XOrIOp::create(b, loc, first,
                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  auto ifWaits = scf::IfOp::create(b, loc, waits, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifWaits.getThenRegion().front());
  namedBarrier(arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                          add(warpgroup, c(kFirstTurnBarrier))),
               2 * kWarpgroup);
}

void WgmmaEmitter::passTurn(Value t) {
  // Only to a consumer that has a next tile, so no arrival is left over.
  // Tiles count in units of a cluster's rows, as emitTileLoop steps them:
  // the other consumer's next tile is one step of the block loop on.
  int64_t rows = opt.clusterRows;
  Value next = add(t, c(plan.blocks / rows));
  Value tiles = plan.runtimeGridY ? tileCount() : c(plan.tileCount / rows);
  auto ifNext =
      scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::ult, next, tiles),
                        /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifNext.getThenRegion().front());
  Value other = arith::SubIOp::create(b, loc, c(1), warpgroup);
  NVVM::BarrierArriveOp::create(
      b, loc,
      arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                 add(other, c(kFirstTurnBarrier))),
      arith::ConstantIntOp::create(b, loc, 2 * kWarpgroup, 32));
}

Value WgmmaEmitter::tileCount() {
  if (!plan.runtimeGridY)
    return c(plan.tileCount);
  return mul(c(plan.gridX * plan.gridZ), plan.runtimeGridY);
}

std::pair<scf::ForOp, Value> WgmmaEmitter::emitTileLoop(bool alternate) {
  gpu::KernelDim3 ids = plan.launch.getBlockIds();
  // In clusters, cluster ids.x takes pairs of vertically adjacent tiles
  // (units of clusterRows rows), and its block ids.y the row in the pair.
  int64_t rows = opt.clusterRows, steps = plan.blocks / rows;
  Value first = alternate ? add(ids.x, mul(warpgroup, c(steps))) : ids.x;
  auto loop = scf::ForOp::create(
      b, loc, first, plan.runtimeGridY ? tileCount() : c(plan.tileCount / rows),
      c(alternate ? 2 * steps : steps));
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value kStart = mul(div(arith::SubIOp::create(b, loc, t, ids.x), steps),
                     c(plan.kTileCount));
  Value plane = plan.runtimeGridY ? mul(c(plan.gridX), plan.runtimeGridY)
                                  : c(plan.gridX * plan.gridY / rows);
  Value z = arith::DivUIOp::create(b, loc, t, plane);
  Value r = arith::RemUIOp::create(b, loc, t, plane);
  Value x, y;
  if (opt.groupRows > 1) {
    OpFoldResult tileRows = plan.runtimeGridY
                                ? OpFoldResult(plan.runtimeGridY)
                                : b.getIndexAttr(plan.gridY / rows);
    std::tie(x, y) = groupedOrder(b, loc, r, plan.gridX, tileRows,
                                  std::max<int64_t>(1, opt.groupRows / rows));
  } else {
    x = rem(r, plan.gridX);
    y = div(r, plan.gridX);
  }
  if (plan.clustered())
    y = add(mul(y, c(rows)), ids.y);
  tileValues.clear();
  tileValues.map(ids.x, x);
  tileValues.map(ids.y, y);
  tileValues.map(ids.z, z);
  gpu::KernelDim3 sizes = plan.launch.getGridSize();
  Value gridSizes[] = {c(plan.gridX),
                       plan.runtimeGridY ? plan.runtimeGridY : c(plan.gridY),
                       c(plan.gridZ)};
  tileValues.map(sizes.x, gridSizes[0]);
  tileValues.map(sizes.y, gridSizes[1]);
  tileValues.map(sizes.z, gridSizes[2]);
  // Block mapping leaves `gpu.block_id` ops in the body rather than uses
  // of the launch's arguments.
  Value tileIds[] = {x, y, z};
  for (Operation *op : bodyOps)
    op->walk([&](Operation *nested) {
      if (auto id = dyn_cast<gpu::BlockIdOp>(nested))
        tileValues.map(id.getResult(),
                       tileIds[static_cast<unsigned>(id.getDimension())]);
      else if (auto dim = dyn_cast<gpu::GridDimOp>(nested))
        tileValues.map(dim.getResult(),
                       gridSizes[static_cast<unsigned>(dim.getDimension())]);
    });
  return {loop, kStart};
}
