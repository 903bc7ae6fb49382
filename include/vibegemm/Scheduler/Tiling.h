//===- Tiling.h - The built-in scheduler's tiling policy --------*- C++ -*-===//
//
// What the built-in scheduler chooses for a GEMM dispatch, before any script
// is written: the SIMT tiling, the kernel path and its tiling, and the
// variants worth racing. Pure arithmetic over GemmProblem and TargetInfo.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_SCHEDULER_TILING_H
#define VIBEGEMM_SCHEDULER_TILING_H

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Target/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::vibegemm {

/// Output tile of the split-K combining kernel's blocks: one output per
/// thread of its 16x16 threads.
constexpr int64_t kCombineTile = 16;

/// The kernel rewrite a block-tiled GEMM takes.
enum class KernelPath {
  /// Tensor cores through mma.sync (`transform.vibegemm.gemm_to_mma_sync`).
  MmaSync,
  /// Hopper's TMA and wgmma (`transform.vibegemm.gemm_to_wgmma`, sm_90a).
  Wgmma,
  /// f32 operands on CUDA cores (`transform.vibegemm.gemm_to_ffma`).
  Ffma,
  /// Matrix-vector shapes, a block's threads splitting K
  /// (`transform.vibegemm.gemm_to_block_reduce`).
  BlockReduce,
};

/// The name report.json and the script's comment give `path`.
llvm::StringRef kernelPathName(KernelPath path);

/// The choices of a kernel path. Fields a path does not use keep their
/// defaults, or 0 where the path has no such choice.
struct KernelTiling {
  KernelPath path = KernelPath::MmaSync;
  int64_t blockM = 128, blockN = 128, blockK = 32;
  /// mma.sync only: the warp grid over the block tile.
  int64_t warpsM = 2, warpsN = 2, stages = 4;
  /// Split-K factor (1: none). Partial products go to an [splitK, M, N] f32
  /// buffer that a second kernel sums in a fixed order (deterministic)
  /// before the epilogue.
  int64_t splitK = 1;
  /// wgmma only: consumer warpgroups; blockK is then 64 (32 for TF32, 128
  /// for FP8).
  int64_t consumers = 1;
  /// wgmma only: a persistent kernel of this many blocks looping over the
  /// tiles (0: one block per tile).
  int64_t persistentBlocks = 0;
  /// wgmma only: 2 runs blocks in clusters of two tiles along M that
  /// multicast their halves of B (`cluster_rows`); 1: no clusters.
  int64_t clusterRows = 1;
  /// wgmma persistent kernels only: the epilogue in registers, written out
  /// by TMA stores that overlap the next tile (`tma_store`).
  bool tmaStore = false;
  /// With tmaStore: the epilogue's residual input comes in by TMA through
  /// the staging tile (`tma_load_residual`).
  bool tmaLoadResidual = false;
  /// Inputs (0: A, 1: B) whose rows are not a multiple of 16 bytes, first
  /// copied into zero-padded buffers (`transform.vibegemm.align_operand_rows`)
  /// so TMA, or the FFMA path's 16-byte copies, can read them.
  llvm::SmallVector<int64_t, 2> alignOperands;
  /// What the padded copies' rows are rounded up to (`row_bytes`).
  int64_t alignRowBytes = 16;
  /// Blocks run in groups of this many rows of tiles
  /// (`transform.vibegemm.group_blocks`), so the tiles in flight share
  /// their A and B panels in L2; 1 keeps the launch's order.
  int64_t groupRows = 1;
  /// Block-reduce only: one output per block (1x1 block tiles, or 2 along
  /// the matrix's rows), `threads` threads splitting K.
  int64_t threads = 256;
  /// FFMA only: `threadM x threadN` outputs per thread.
  int64_t threadM = 8, threadN = 8;
  /// f32 operands on the mma.sync or wgmma path: "tf32" or "3xtf32", only
  /// where the dispatch allows it (`vibegemm.f32_precision`).
  std::string f32Precision;

  llvm::StringRef kindName() const { return kernelPathName(path); }
};

/// The tunable choices of the built-in SIMT schedule. Each tile size becomes
/// a `transform.tune.knob` in the script.
struct SimtTiling {
  int64_t blockM = 64, blockN = 64, blockK = 16;
  int64_t threadM = 4, threadN = 4;
  /// Staged path: A and B K-tiles go through shared memory and the
  /// accumulator stays in registers. Needs tiles that divide the problem.
  bool staged = false;
  /// Where a ragged M or N is split into a divisible interior and an edge
  /// (0: no split along that dimension).
  int64_t splitM = 0, splitN = 0;
  /// Why the staged path was not taken, for the script's comment.
  std::string fallbackReason;
  /// The reference schedule: every op its own kernel, one output per thread.
  bool reference = false;
  /// Bits each thread copies per global->shared transfer, and the
  /// per-thread copy tiles of A and B (rows, columns in memory order).
  int64_t copyBits = 128;
  int64_t copyA[2] = {1, 4}, copyB[2] = {1, 4};

  /// The kernel path, when the problem takes one. The SIMT fields above
  /// stay as chosen: the CPU check, which cannot run the kernel rewrites,
  /// uses them.
  std::optional<KernelTiling> kernel;

  int64_t threadsPerBlock() const {
    return (blockM / threadM) * (blockN / threadN);
  }
};

/// The tiling of the reference kernels candidates are checked against:
/// 16x16 blocks, one output element per thread, no shared memory, every
/// consumer in a kernel of its own. Slow, and simple enough to trust.
SimtTiling referenceTiling();

/// A variant of the built-in choice and what report.json calls it.
struct TilingVariant {
  std::string name;
  SimtTiling tiling;
};

/// Variants of the chosen tiling worth racing against it where candidates
/// are measured on the GPU (never chosen on static estimates). For the
/// 128x256 two-consumer wgmma tile: where the choice is the persistent
/// kernel with TMA stores, one block per tile ("per-tile") and, where the
/// tile rows pair up, the choice in 2-block clusters multicasting B
/// ("persistent-cluster-tma"); where the choice is one block per tile, the
/// persistent kernel ("persistent") and, where TMA can store the output
/// rows, the same with TMA stores ("persistent-tma"). For split-K under the
/// 64x128 tile, a 128x128 tile split twice as finely ("split-wide"). For
/// the FFMA kernel (f32 without TF32): a 64x128 tile where 128x128 tiles
/// are short of two waves ("tile-64x128"), half the threads with twice the
/// outputs each ("threads-half"), and on a short grid the 128x128 tile
/// split along K ("split-wide"). Empty when there is none.
llvm::SmallVector<TilingVariant, 4>
alternativeTilings(const GemmProblem &problem, const SimtTiling &chosen,
                   const TargetInfo &target);

/// Threads of each block of a softmax consumer's kernel (one row of N per
/// block, `transform.vibegemm.softmax_to_block_reduce`).
int64_t softmaxThreadsFor(const GemmProblem &problem);

/// Chooses a tiling for `problem` on `target`.
SimtTiling chooseSimtTiling(const GemmProblem &problem,
                            const TargetInfo &target);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_SCHEDULER_TILING_H
