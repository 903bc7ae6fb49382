//===- GroupBlocks.cpp - Grouped block order of a launch (L2 reuse) -------===//
//
// Triton's grouped program order: the linear block id l = x + gx * y walks
// groups of `group` rows; within a group y runs fastest, so the blocks that
// run together read a few row panels of A and a few column panels of B
// instead of one row of tiles and all of B.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::vibegemm;

std::pair<Value, Value> vibegemm::groupedOrder(OpBuilder &b, Location loc,
                                               Value linear, int64_t gx,
                                               OpFoldResult gy, int64_t group) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value perGroup = c(group * gx);
  Value first = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, linear, perGroup), c(group));
  // The last group may hold fewer rows.
  Value rows = arith::MinUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, gy),
                            first),
      c(group));
  Value inGroup = arith::RemUIOp::create(b, loc, linear, perGroup);
  Value y = arith::AddIOp::create(
      b, loc, first, arith::RemUIOp::create(b, loc, inGroup, rows));
  Value x = arith::DivUIOp::create(b, loc, inGroup, rows);
  return {x, y};
}

LogicalResult vibegemm::groupBlocks(RewriterBase &rewriter,
                                    gpu::LaunchOp launch, int64_t group,
                                    std::string &why) {
  std::optional<int64_t> gx = getConstantIntValue(launch.getGridSizeX());
  std::optional<int64_t> gy = getConstantIntValue(launch.getGridSizeY());
  if (!gx) {
    why = "grouping blocks needs a constant x grid size";
    return failure();
  }
  // Blocks in clusters of rows (gemm_to_wgmma {cluster_rows}) move
  // together: the order is over clusters, and a cluster's blocks keep
  // their rank.
  int64_t clusterRows = 1;
  if (auto shape =
          launch->getAttrOfType<DenseI64ArrayAttr>(kClusterShapeAttr)) {
    if (shape.size() != 3 || shape[0] != 1 || shape[2] != 1 || shape[1] < 1 ||
        !gy || *gy % shape[1]) {
      why = "grouping blocks keeps only clusters of whole rows along y "
            "together";
      return failure();
    }
    clusterRows = shape[1];
  }
  group = std::max<int64_t>(1, group / clusterRows);
  // One row of blocks, or groups of one row: the order stays as it is.
  if (group <= 1 || (gy && *gy / clusterRows == 1))
    return success();
  // Rows of clusters; a run-time count (rows of M tiles) as the body reads
  // the grid's size.
  OpFoldResult unitRows =
      gy ? OpFoldResult(rewriter.getIndexAttr(*gy / clusterRows))
         : OpFoldResult(launch.getGridSize().y);

  // What the body reads the block ids through.
  gpu::KernelDim3 args = launch.getBlockIds();
  SmallVector<Value> readsX = {args.x}, readsY = {args.y};
  launch.getBody().walk([&](gpu::BlockIdOp id) {
    if (id->getParentOfType<gpu::LaunchOp>() != launch)
      return;
    if (id.getDimension() == gpu::Dimension::x)
      readsX.push_back(id.getResult());
    else if (id.getDimension() == gpu::Dimension::y)
      readsY.push_back(id.getResult());
  });

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Location loc = launch.getLoc();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Ops that read the launch's own ids keep reading them.
  llvm::SmallPtrSet<Operation *, 4> readers;
  Value unitY = args.y, rank;
  if (clusterRows > 1) {
    auto unitOp = arith::DivUIOp::create(rewriter, loc, args.y, c(clusterRows));
    auto rankOp = arith::RemUIOp::create(rewriter, loc, args.y, c(clusterRows));
    readers.insert({unitOp, rankOp});
    unitY = unitOp;
    rank = rankOp;
  }
  auto rowStart = arith::MulIOp::create(rewriter, loc, unitY, c(*gx));
  auto linearOp = arith::AddIOp::create(rewriter, loc, args.x, rowStart);
  readers.insert({rowStart, linearOp});
  auto [x, y] = groupedOrder(rewriter, loc, linearOp, *gx, unitRows, group);
  if (rank)
    y = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, y, c(clusterRows)),
        rank);

  // The new ids are computed from the launch's arguments (by `readers`);
  // every other read of the old ids takes them.
  auto replace = [&](Value old, Value now) {
    rewriter.replaceUsesWithIf(old, now, [&](OpOperand &use) {
      return !readers.contains(use.getOwner());
    });
  };
  for (Value old : readsX)
    replace(old, x);
  for (Value old : readsY)
    replace(old, y);
  return success();
}
