//===- WgmmaGemm.h - A block's GEMM tile as a Hopper wgmma kernel -*- C++ -*-===//
//
// Builds the sm_90a body behind `transform.vibegemm.gemm_to_wgmma`: TMA
// loads into a swizzled shared-memory ring by a producer warpgroup,
// mbarrier handshakes, wgmma by consumer warpgroups, and the epilogue from
// a shared-memory staging tile.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_WGMMAGEMM_H
#define VIBEGEMM_TRANSFORMOPS_WGMMAGEMM_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include "vibegemm/TransformOps/MmaSyncGemm.h"

#include <string>

namespace mlir::vibegemm {

struct WgmmaOptions {
  int64_t stages = 4;
  /// Consumer warpgroups; each owns block_m / consumers rows.
  int64_t consumers = 1;
  /// Tf32 for f32 operands (read as TF32 by the tensor cores); None for
  /// f16/bf16.
  F32Precision precision = F32Precision::None;
  /// Persistent kernel: this many blocks (at most one per tile) loop over
  /// the tiles; 0 launches one block per tile.
  int64_t persistentBlocks = 0;
  /// 2: blocks run in clusters of two vertically adjacent tiles (grid y),
  /// which share B: each block loads half of B's K-tile and multicasts it
  /// to both. 1: no clusters.
  int64_t clusterRows = 1;
  /// Persistent kernels: the blocks take the tiles in groups of this many
  /// rows (Triton's grouped order; clusters keep their pairs); 1: in the
  /// launch's order.
  int64_t groupRows = 1;
  /// Persistent kernels: each consumer applies the epilogue in registers,
  /// writes its rows in the output type to a swizzled staging tile and a
  /// TMA store writes them out while it goes on to the next tile.
  bool tmaStore = false;
  /// Persistent kernels with two consumers: each consumer owns whole tiles,
  /// alternating (CUTLASS's ping-pong), and the two take turns at the
  /// tensor cores, so one's epilogue runs under the other's main loop.
  bool pingPong = false;
  /// With tmaStore: the epilogue's one input shaped and typed as the output
  /// (a residual) comes in by TMA into the staging tile the results then
  /// overwrite, loaded before the tile's main loop, rather than element by
  /// element from global memory. The tile must be staged in one pass.
  bool tmaLoadResidual = false;
};

/// Replaces the bufferized contraction `target` (one block's output tile,
/// inside a gpu.launch, operands viewing whole buffers defined outside it)
/// and its elementwise consumers with a warp-specialised TMA + wgmma kernel
/// body, and returns the consumers' K loop. On failure the IR is untouched
/// and `why` says what did not fit.
FailureOr<scf::ForOp> rewriteGemmAsWgmma(RewriterBase &rewriter,
                                         Operation *target,
                                         const WgmmaOptions &options,
                                         std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_WGMMAGEMM_H
