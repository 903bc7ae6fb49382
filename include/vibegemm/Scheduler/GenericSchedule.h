//===- GenericSchedule.h - Schedules for dispatches without a GEMM -*- C++ -*-===//
//
// Writes the transform script of a generic dispatch: one elementwise,
// broadcast, transpose or reduction op that no GEMM took as its epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_SCHEDULER_GENERICSCHEDULE_H
#define VIBEGEMM_SCHEDULER_GENERICSCHEDULE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <memory>
#include <string>

namespace mlir::vibegemm {

/// How a generic dispatch's op is spread over the GPU.
struct GenericTiling {
  /// Per loop of the op: the block tile (0: the whole loop, run inside each
  /// thread) and the thread tile (0: likewise).
  SmallVector<int64_t> blockTiles, threadTiles;
  /// The block dimension (0 x, 1 y, 2 z) of each loop with a block tile.
  SmallVector<int> blockDims;
  /// Threads per block, all along x.
  int64_t threads = 1;
  /// The loop on x has a run-time size: its last block is ragged, so
  /// threads take it by count (`num_threads`) rather than one element each.
  bool raggedThreads = false;
  /// Some loop has a run-time size: the grid is computed on the host
  /// (`transform.vibegemm.map_forall_to_grid`).
  bool runtimeGrid = false;
  /// A reduction split into partial results over `splitFactor` consecutive
  /// elements (`structured.split_reduction`, the split dimension parallel
  /// and innermost, so a warp's lanes read neighbours), then combined by a
  /// second kernel tiled as `combine`. The tiles above are the partial
  /// op's. 0: one kernel, each reduction inside a thread.
  int64_t splitFactor = 0;
  std::shared_ptr<const GenericTiling> combine;
};

/// Tiles the op's output dimensions: the innermost over the threads of a
/// block (one element each, so neighbouring threads touch neighbouring
/// elements) and its blocks, the next two over grid y and z, any others and
/// every reduction loop inside each thread. A reduction over a contiguous
/// dimension of 128 elements or more is split first (see `splitFactor`)
/// where every size is static. Run-time sizes (a token count) tile the
/// same way with a grid computed at launch.
FailureOr<GenericTiling> chooseGenericTiling(func::FuncOp dispatch);

/// The script for `dispatch`'s op tagged `vibegemm.role = "generic"`; with
/// `cpuCheck`, blocks and threads run as sequential loops.
FailureOr<std::string> writeGenericSchedule(func::FuncOp dispatch,
                                            llvm::StringRef sequenceName,
                                            bool cpuCheck = false);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_SCHEDULER_GENERICSCHEDULE_H
