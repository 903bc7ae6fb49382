//===- GroupBlocks.h - Grouped block order of a launch (L2 reuse) -*- C++ -*-===//
//
// Builds what `transform.vibegemm.group_blocks` does: the blocks of a
// gpu.launch, started in x-fastest order, take their tiles in groups of rows
// along y, so the blocks resident at one time share operand panels in L2.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_GROUPBLOCKS_H
#define VIBEGEMM_TRANSFORMOPS_GROUPBLOCKS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::vibegemm {

/// Renumbers the x and y block ids `launch`'s body reads (its block-id
/// arguments and gpu.block_id ops) so that consecutive blocks visit `group`
/// rows of y before x moves on. A bijection of the grid: every tile is
/// still computed once. Needs constant x and y grid sizes; fails, leaving
/// the IR untouched, otherwise, saying why.
LogicalResult groupBlocks(RewriterBase &rewriter, gpu::LaunchOp launch,
                          int64_t group, std::string &why);

/// The (x, y) the `linear`-th block (index) of a gx x gy grid takes in
/// grouped order: groups of `group` rows (the last may hold fewer), y
/// fastest within a group.
std::pair<Value, Value> groupedOrder(OpBuilder &b, Location loc, Value linear,
                                     int64_t gx, int64_t gy, int64_t group);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_GROUPBLOCKS_H
