//===- Kernels.h - Kernel builders behind vibegemm's transform ops -*- C++
//-*-===//
//
// The IR rewrites that build a block's kernel body (mma.sync, wgmma, FFMA,
// block-reduce, block softmax) and the launch-level rewrites around them
// (row alignment, block grouping). `TransformOps` maps each transform op's
// attributes onto these options and calls them, as Linalg's transform ops
// call Linalg/Transforms. Each rewrite analyses first and leaves the IR
// untouched when it refuses, with `why` saying what did not fit.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_KERNELS_KERNELS_H
#define VIBEGEMM_KERNELS_KERNELS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::vibegemm {

//===----------------------------------------------------------------------===//
// A block forall as a launch whose grid is computed at run time
//===----------------------------------------------------------------------===//
/// Replaces a normalized, bufferized `scf.forall` mapped to `#gpu.block`s
/// by a `gpu.launch` whose grid is the forall's trip counts, computed on the
/// host (dynamic ones included; upstream's map_forall_to_blocks needs them
/// static), and whose block ids stand for the induction variables. Block
/// sizes start at 1, as upstream's do. Fails, leaving the IR untouched,
/// saying why otherwise.
FailureOr<gpu::LaunchOp>
mapForallToGrid(RewriterBase &rewriter, scf::ForallOp forall, std::string &why);

//===----------------------------------------------------------------------===//
// Split-K of a contraction whose parallel sizes may be dynamic
//===----------------------------------------------------------------------===//
/// `linalg::splitReduction` of `op`'s one reduction dimension by
/// `splitFactor`, the split dimension leading the partials ([split, output
/// dims...]), whose tensor.empty gets the output's dynamic sizes (upstream
/// leaves them out). K must be static and a multiple of the factor. Fails,
/// leaving the IR untouched, saying why otherwise.
FailureOr<linalg::SplitReductionResult> splitK(RewriterBase &rewriter,
                                               linalg::LinalgOp op,
                                               int64_t splitFactor,
                                               std::string &why);

//===----------------------------------------------------------------------===//
// Grouped block order of a launch (L2 reuse)
//===----------------------------------------------------------------------===//
// Builds what `transform.vibegemm.group_blocks` does: the blocks of a
// gpu.launch, started in x-fastest order, take their tiles in groups of rows
// along y, so the blocks resident at one time share operand panels in L2.
/// Renumbers the x and y block ids `launch`'s body reads (its block-id
/// arguments and gpu.block_id ops) so that consecutive blocks visit `group`
/// rows of y before x moves on. A bijection of the grid: every tile is
/// still computed once. Needs a constant x grid size (y may be a run-time
/// row count, unless the blocks run in clusters); fails, leaving
/// the IR untouched, otherwise, saying why.
LogicalResult groupBlocks(RewriterBase &rewriter, gpu::LaunchOp launch,
                          int64_t group, std::string &why);

/// The (x, y) the `linear`-th block (index) of a gx x gy grid takes in
/// grouped order: groups of `group` rows (the last may hold fewer), y
/// fastest within a group. gy may be a run-time value (rows of M tiles).
std::pair<Value, Value> groupedOrder(OpBuilder &b, Location loc, Value linear,
                                     int64_t gx, OpFoldResult gy,
                                     int64_t group);

//===----------------------------------------------------------------------===//
// Zero-padded copies of misaligned operands
//===----------------------------------------------------------------------===//
// Builds what `transform.vibegemm.align_operand_rows` does: each GEMM
// operand whose rows are not a multiple of 16 bytes is copied, by a kernel
// of its own, into a buffer whose rows are, with a zero tail; the GEMM then
// reads a view of it, so TMA (which needs 16-byte strides) can load it.
/// Marks an allocation whose rows were padded with zeros past the data
/// they copy, with the data's row length (elements): reading past it gives
/// 0, which the wgmma path relies on when its K loop runs into the tail.
constexpr llvm::StringLiteral kZeroPaddedAttr = "vibegemm.zero_padded";

/// Copies each input of the bufferized GEMM `target` (inside a gpu.launch)
/// named by `operands` (input indices) whose underlying buffer has rows
/// that are not a multiple of 16 bytes into a buffer whose rows are
/// rounded up to `rowBytes` (a power of two, at least 16), before the
/// launch, and points the GEMM at it. Returns the copy kernels' launches
/// (none when every such operand was aligned). On failure the IR is
/// untouched and `why` says what did not fit.
FailureOr<SmallVector<gpu::LaunchOp>>
alignOperandRows(RewriterBase &rewriter, Operation *target,
                 ArrayRef<int64_t> operands, int64_t rowBytes,
                 std::string &why);

//===----------------------------------------------------------------------===//
// A block's GEMM tile as an mma.sync kernel
//===----------------------------------------------------------------------===//
// Builds the tensor-core body behind `transform.vibegemm.gemm_to_mma_sync`:
// cp.async staging, ldmatrix fragments, m16n8k16 mma.sync with f32
// accumulators in registers and the elementwise epilogue in registers; for
// f32 operands, on request only, m16n8k8 TF32 or split 3xTF32 MMAs.
/// How f32 operands reach the tensor cores. Both change accuracy, so
/// neither is ever chosen for the user: f32 GEMMs otherwise take FFMA.
enum class F32Precision {
  /// f16/bf16 operands: no conversion.
  None,
  /// Each operand rounded to TF32 (10-bit mantissa, cvt.rna): one MMA.
  Tf32,
  /// Each operand split into a TF32 value and a TF32 remainder; three MMAs
  /// (small*big, big*small, big*big) recover about f32 accuracy.
  Tf32x3,
};

/// "tf32" and "3xtf32" as written in scripts and plans.
std::optional<F32Precision> parseF32Precision(llvm::StringRef name);
llvm::StringRef f32PrecisionName(F32Precision precision);

/// Marks the function around `gemm` with `vibegemm.f32_precision`, which
/// the launch plan carries so the runtime verifies with TF32's tolerance;
/// TF32 wins over 3xTF32 where one function holds both.
void markF32Precision(OpBuilder &b, Operation *gemm, F32Precision precision);

struct MmaSyncOptions {
  int64_t blockK = 32;
  int64_t warpsM = 2, warpsN = 2;
  int64_t stages = 3;
  F32Precision precision = F32Precision::None;
};

/// Replaces the bufferized contraction `target` (one block's output tile,
/// inside a gpu.launch) and its elementwise consumers with an mma.sync
/// kernel body, and returns its K loop. On failure the IR is untouched and
/// `why` says what did not fit.
FailureOr<scf::ForOp> rewriteGemmAsMmaSync(RewriterBase &rewriter,
                                           Operation *target,
                                           const MmaSyncOptions &options,
                                           std::string &why);

//===----------------------------------------------------------------------===//
// A block's GEMM tile as a Hopper wgmma kernel
//===----------------------------------------------------------------------===//
// Builds the sm_90a body behind `transform.vibegemm.gemm_to_wgmma`: TMA
// loads into a swizzled shared-memory ring by a producer warpgroup,
// mbarrier handshakes, wgmma by consumer warpgroups, and the epilogue from
// a shared-memory staging tile.
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

//===----------------------------------------------------------------------===//
// A block's f32 GEMM tile as an FFMA kernel
//===----------------------------------------------------------------------===//
// The CUDA-core path for f32 operands (no TF32): register tiles of FFMA
// outer products fed from a cp.async ring in shared memory.
struct FfmaOptions {
  int64_t blockK = 16;
  /// Outputs per thread along M and N; multiples of 4 (float4 fragments).
  int64_t threadM = 8, threadN = 8;
  int64_t stages = 3;
};

/// Replaces the bufferized f32 contraction `target` (one block's output
/// tile, inside a gpu.launch) and its elementwise consumers with an FFMA
/// kernel body, and returns its K loop. On failure the IR is untouched and
/// `why` says what did not fit.
FailureOr<scf::ForOp> rewriteGemmAsFfma(RewriterBase &rewriter,
                                        Operation *target,
                                        const FfmaOptions &options,
                                        std::string &why);

//===----------------------------------------------------------------------===//
// A small GEMM tile as a block reduction
//===----------------------------------------------------------------------===//
// Builds the body behind `transform.vibegemm.gemm_to_block_reduce`: the
// threads of a block split K, each accumulates every output of a tile of a
// few outputs (a GEMV row), then warp shuffles and shared memory reduce.
struct BlockReduceOptions {
  /// Threads of the block; a multiple of 32.
  int64_t threads = 256;
};

/// Outputs one block tile may hold: each thread keeps a partial sum of
/// every one of them.
constexpr int64_t kMaxBlockReduceOutputs = 16;

/// Replaces the bufferized contraction `target` (one block's tile of at
/// most kMaxBlockReduceOutputs outputs, inside a gpu.launch) and its
/// elementwise consumers with a K-split dot-product kernel body, and
/// returns its K loop. On failure the IR is untouched and `why` says what
/// did not fit.
FailureOr<scf::ForOp>
rewriteGemmAsBlockReduce(RewriterBase &rewriter, Operation *target,
                         const BlockReduceOptions &options, std::string &why);

//===----------------------------------------------------------------------===//
// A block's softmax rows as block reductions
//===----------------------------------------------------------------------===//
// Builds the body behind `transform.vibegemm.softmax_to_block_reduce`: the
// threads of a block share each row, an online max-and-sum pass reduces
// through warp shuffles and shared memory, a second pass writes.
struct BlockSoftmaxOptions {
  /// Threads of the block; a multiple of 32.
  int64_t threads = 256;
};

/// Replaces the bufferized 2-D `linalg.softmax` `target` over its last
/// dimension (one block's rows, inside a gpu.launch) with a kernel body in
/// which the block's threads share each row, and returns the row loop. On
/// failure the IR is untouched and `why` says what did not fit.
FailureOr<scf::ForOp>
rewriteSoftmaxAsBlockReduce(RewriterBase &rewriter, Operation *target,
                            const BlockSoftmaxOptions &options,
                            std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_KERNELS_KERNELS_H
