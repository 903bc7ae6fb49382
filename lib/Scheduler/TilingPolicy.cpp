//===- TilingPolicy.cpp - The built-in scheduler's choices ----------------===//
//
// Chooses a tiling for a GEMM dispatch from its shape and the target table:
// the SIMT tiling (staged or direct), and the kernel path that takes it where
// one does (wgmma, mma.sync, FFMA, block-reduce; split-K, TF32, FP8).
//
//===----------------------------------------------------------------------===//

#include "TilingRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tiling;

namespace {

/// The per-thread tile `map_copy_to_threads` gives a rows x cols copy split
/// over `threads` threads moving `vec` elements each, if it divides evenly.
std::optional<std::pair<int64_t, int64_t>>
perThreadCopy(int64_t rows, int64_t cols, int64_t threads, int64_t vec) {
  if (cols % vec)
    return std::nullopt;
  int64_t inner = cols / vec;
  if (inner > threads || threads % inner)
    return std::nullopt;
  int64_t outer = threads / inner;
  if (rows < outer || rows % outer)
    return std::nullopt;
  return std::make_pair(rows / outer, vec);
}

/// Fills in the staged-path fields of `t`, or says why it cannot be used.
void tryStagedPath(const GemmProblem &p, SimtTiling &t) {
  auto fail = [&](StringRef why) {
    t.staged = false;
    t.fallbackReason = why.str();
  };
  if (p.batched)
    return fail("batched GEMMs use the direct schedule for now");
  // Its shared-memory copies split off a remainder along a run-time M.
  if (p.mRange)
    return fail("a run-time M uses the direct schedule");
  // The staged copies' vectorization fails on 8-bit elements (seen on an
  // FP8 linear with scales); the direct schedule widens each element.
  if (isFloat8(p.lhsType))
    return fail("FP8 operands use the direct schedule off the wgmma path");
  // A softmax counts among the epilogues but runs as a kernel of its own.
  int elementwise = p.epilogueOps - (p.hasSoftmax ? 1 : 0);
  if (elementwise > 1)
    return fail("only a single elementwise epilogue is staged for now");
  if (elementwise > 0 && !p.fuseEpilogues)
    return fail("the dispatch asks for its epilogue in separate kernels");
  if (p.m % t.blockM || p.n % t.blockN) {
    // Ragged M or N: split off the edges, when there is an interior and no
    // epilogue to split along with the GEMM.
    if (p.epilogueOps > 0 || p.hasSoftmax)
      return fail("block tiles do not divide M and N under an epilogue");
    if (p.m < t.blockM || p.n < t.blockN)
      return fail("the problem is smaller than one block tile");
    t.splitM = p.m % t.blockM ? p.m - p.m % t.blockM : 0;
    t.splitN = p.n % t.blockN ? p.n - p.n % t.blockN : 0;
  }
  int64_t bits = p.lhsType.getIntOrFloatBitWidth();
  if (bits != static_cast<int64_t>(p.rhsType.getIntOrFloatBitWidth()))
    return fail("mixed operand widths");
  // Four elements per copy keeps every K-tile width a multiple of the copy.
  int64_t vec = 4;
  int64_t threads = t.threadsPerBlock();
  // Prefer a K tile that divides K; a ragged last K tile is zero-padded by
  // the staging copies, which is correct but wastes part of a step.
  SmallVector<int64_t> order;
  for (int64_t bk : {8, 16, 32})
    if (p.k % bk == 0)
      order.push_back(bk);
  for (int64_t bk : {8, 16, 32})
    if (p.k % bk != 0)
      order.push_back(bk);
  for (int64_t bk : order) {
    auto a = p.transposeA ? perThreadCopy(bk, t.blockM, threads, vec)
                          : perThreadCopy(t.blockM, bk, threads, vec);
    auto b = p.transposeB ? perThreadCopy(t.blockN, bk, threads, vec)
                          : perThreadCopy(bk, t.blockN, threads, vec);
    if (!a || !b)
      continue;
    t.blockK = bk;
    t.copyBits = vec * bits;
    t.copyA[0] = a->first;
    t.copyA[1] = a->second;
    t.copyB[0] = b->first;
    t.copyB[1] = b->second;
    t.staged = true;
    return;
  }
  fail("no K tile splits the shared-memory copies evenly over the threads");
}

/// A wgmma tiling: K steps of 64, `consumers` warpgroups over the tile.
KernelTiling wgmmaTiling(int64_t blockM, int64_t blockN, int64_t consumers,
                         int64_t stages) {
  KernelTiling t;
  t.path = KernelPath::Wgmma;
  t.blockM = blockM;
  t.blockN = blockN;
  t.consumers = consumers;
  t.stages = stages;
  t.blockK = 64;
  t.warpsM = t.warpsN = 0;
  return t;
}

/// The Hopper path for sm_90a: any of the four layouts, at least 64 rows
/// and columns, batched or not (3-D tensor maps). Operands whose rows TMA
/// cannot stride over (not a multiple of 16 bytes) are copied into padded
/// buffers first, when the GEMM does enough work per element to pay for
/// the copy. 128x256 tiles with two consumer warpgroups where they fill the
/// chip, else 128x128 with one.
std::optional<KernelTiling> chooseWgmmaTiling(const GemmProblem &p,
                                              const TargetInfo &target) {
  bool rowsAligned = (p.transposeA ? p.m : p.k) % 8 == 0 &&
                     (p.transposeB ? p.k : p.n) % 8 == 0;
  // FLOPs per operand element: the copies add one read and write each.
  double intensity = 2.0 * p.m * p.n * p.k / (p.m * p.k + p.k * p.n);
  if (!target.hasWgmma || (!rowsAligned && (intensity < 512 || p.mRange)) ||
      p.m < 64 || p.n < 64)
    return std::nullopt;
  int64_t wide = tileCount(p, 128, 256);
  KernelTiling t = wide >= target.smCount ? wgmmaTiling(128, 256, 2, 4)
                                          : wgmmaTiling(128, 128, 1, 6);
  // cuBLAS's design for the wide tile: one block per SM looping over the
  // tiles, each tile's epilogue packed into the output type and stored
  // with TMA while the next tile's K loop runs. Measured against one block
  // per tile in the product's race: 4096^3 0.2016 -> 0.1945 ms, 32768^2 x
  // 64 0.888 -> 0.641, 4096^2 x 256 0.0283 -> 0.0200, 128 x 512x2048x1024
  // 0.503 -> 0.440, 8192^3 unchanged (docs/benchmarks/
  // h200-2026-12-05-mbarrier-tma). On ragged tiles, A stored [K, M] and
  // batches the persistent kernel beat one block per tile by 3-25 % too,
  // with TMA stores or without (docs/benchmarks/h100-2026-12-05-edges, an
  // H100). TMA stores need output rows of a multiple of 16 bytes; without
  // them the consumers' staging tiles leave room for three stages. Not
  // chosen, but raced: where neither TMA stores nor the operands' rows line
  // up (8205x2949x5921: one block per tile 0.5207 ms, persistent 0.5363),
  // and for f32 outputs (boxes of 32 columns), not yet run on a GPU.
  // Nor under a transcendental epilogue (the erf GELU: ~30 instructions an
  // element while the block's tensor cores idle), where one block per tile
  // won in three races on an H100: 1024x8192x8192 + GELU 0.2083 -> 0.2038
  // and 0.2099 -> 0.2063 ms, + GELU + softmax 0.2237 -> 0.2170 and 0.2275
  // -> 0.2189 (docs/benchmarks/h100-2026-12-05-suite); bias + ReLU stays
  // persistent (0.1948 against 0.1986). Those persistent kernels had their
  // wgmmas serialised by ptxas (libdevice's branching erf); with the
  // branch-free erf they compile clean, not yet re-raced.
  // A bucket of M is judged at its representative M; its blocks loop over
  // the tiles the run-time M gives.
  if (wide >= target.smCount && p.resultType.getIntOrFloatBitWidth() == 16 &&
      (tmaStoresRows(p) || rowsAligned) && p.transcendentalOps == 0) {
    t.persistentBlocks = target.smCount;
    t.tmaStore = tmaStoresRows(p);
    if (!t.tmaStore)
      t.stages = 3;
  }
  // Copies with 128-byte rows: each 128-byte row piece of a TMA box is
  // then one L2 line, not two. 16-byte rows ran 8205x2949x5921 in 0.70 ms,
  // 128-byte rows in 0.51 (docs/benchmarks/h200-2026-12-04-irregular-rows).
  if (!rowsAligned && !p.mRange) {
    t.alignOperands = {0, 1};
    t.alignRowBytes = 128;
  }
  // More than a wave of tiles: groups of 16 tile rows cut L2 misses
  // (measured 4.7 % on 8192^3, 2 % on 4096^3; docs/benchmarks/
  // h200-2026-12-04-group). Not for short K, where the kernel is bound by
  // its output stores and the operands fit in L2 anyway: 32768^2 x 64 ran
  // 17 % slower grouped (docs/benchmarks/h200-2026-12-04-suite).
  if (wide >= target.smCount && p.k >= 512)
    t.groupRows = 16;
  return t;
}

/// Threads of a block that splits `extent` elements into 16-byte chunks
/// (`vector` elements each), about `perThread` chunks per thread.
int64_t threadsFor(int64_t extent, int64_t vector, int64_t perThread) {
  return std::clamp<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(extent, vector * perThread)), 64,
      1024);
}

/// Matrix-vector shapes (M or N of 1) whose matrix is read along K: one
/// output per block (two for 16-bit inputs), the block's threads splitting
/// K, so the matrix streams from HBM at full width. Any of f16, bf16 and
/// f32.
std::optional<KernelTiling> chooseBlockReduceTiling(const GemmProblem &p,
                                                    const TargetInfo &target) {
  bool sameInputs =
      p.lhsType == p.rhsType &&
      (p.lhsType.isF16() || p.lhsType.isBF16() || p.lhsType.isF32());
  // The matrix must be K-contiguous: A [M, K] for N = 1, B [N, K] for M = 1.
  bool matrixAlongK = (p.n == 1 && !p.transposeA) || (p.m == 1 && p.transposeB);
  if (!sameInputs || !p.accType.isF32() || p.batched || p.hasSoftmax ||
      !matrixAlongK || p.m * p.n < 2 || p.k < 256)
    return std::nullopt;
  KernelTiling t;
  t.path = KernelPath::BlockReduce;
  t.blockM = t.blockN = 1;
  t.blockK = 0;
  t.warpsM = t.warpsN = 0;
  t.stages = 0;
  t.threads = threadsFor(p.k, 128 / p.lhsType.getIntOrFloatBitWidth(), 4);
  // Each block reads the whole vector again from L2. Two rows a block
  // share those loads (256x131072 bf16: 134 -> 101 MB through L2) and ran
  // 29.0 -> 26.2 us on an H100 in three races (cuBLAS 31.2;
  // docs/benchmarks/h100-2026-12-05-suite). f32 ran at its memory floor
  // already (h200-2026-12-04-sustained): there the pair only races.
  if (p.lhsType.getIntOrFloatBitWidth() == 16 && matrixRows(p) % 2 == 0)
    matrixRowTile(p, t) = 2;
  // 16-bit inputs over more than two blocks an SM take at most 512
  // threads, as a 1024-thread block holds an SM alone: a stand-in LLM's
  // script took 1x3584x18944 (B [N, K], 1792 blocks) from 65 to 49 us on
  // an H100 with 512 where this chose 1024
  // (docs/benchmarks/2026-12-07-tuning-at-scale). The matvec's 128 blocks
  // keep 1024 (its measured choice); f32 ran at its floor with 1024.
  int64_t blocks = matrixRows(p) / (t.blockM * t.blockN);
  if (p.lhsType.getIntOrFloatBitWidth() == 16 && blocks > 2 * target.smCount)
    t.threads = std::min<int64_t>(t.threads, 512);
  return t;
}

/// Split-K for the block-tiled paths (mma.sync, FFMA): with too few blocks
/// for the chip and a long K, split K until about two blocks per SM. A grid
/// of one block folds the block loop away before the rewrite can find it;
/// such tiny problems keep the SIMT schedule.
std::optional<KernelTiling> finishBlockTiling(const GemmProblem &p,
                                              const TargetInfo &target,
                                              KernelTiling t) {
  if (wantsSplitK(p, t, target))
    growSplitK(p, t, 2 * target.smCount);
  if (blockCount(p, t) * t.splitK == 1)
    return std::nullopt;
  return t;
}

/// Huge K over a small output (256x256x524288): the widest mma.sync tile,
/// 128x256 with 64x64 warp tiles and block_k 64, split over about one block
/// per SM, reads each operand panel fewer times than 64x64 tiles split for
/// two blocks per SM: 0.254 ms against 0.396 on the H200
/// (docs/benchmarks/h200-2026-12-04-ffma). Taken only where that split
/// still fills most of the chip, with K at least 1024 per split.
std::optional<KernelTiling> chooseHugeKTiling(const GemmProblem &p,
                                              const TargetInfo &target) {
  KernelTiling t;
  t.blockM = 128;
  t.blockN = 256;
  t.warpsM = 2;
  t.warpsN = 4;
  t.blockK = 64;
  t.stages = 3;
  if (p.n < t.blockN || !wantsSplitK(p, t, target))
    return std::nullopt;
  growSplitK(p, t, target.smCount);
  if (4 * blockCount(p, t) * t.splitK < 3 * target.smCount)
    return std::nullopt;
  return t;
}

/// Huge K over a small output on sm_90a: the wgmma kernel per split, the
/// widest tile that still gives about one block per SM once split (K
/// chunks of at least 1024, whole 64-wide K-tiles). Needs rows TMA can
/// stride over; the split views are no padded copies. On the H200:
/// 256x256x524288 0.149 ms (mma.sync split-K 0.201), 128x128x65536
/// 23.3 us (29.3) (docs/benchmarks/h200-2026-12-04-splitk).
std::optional<KernelTiling> chooseWgmmaSplitTiling(const GemmProblem &p,
                                                   const TargetInfo &target) {
  bool rowsAligned = (p.transposeA ? p.m : p.k) % 8 == 0 &&
                     (p.transposeB ? p.k : p.n) % 8 == 0;
  if (!target.hasWgmma || !rowsAligned || p.m < 64 || p.n < 64 || p.mRange)
    return std::nullopt;
  struct Shape {
    int64_t bm, bn, consumers, stages;
  };
  const Shape shapes[] = {{128, 256, 2, 4}, {128, 128, 1, 6}, {64, 128, 1, 6}};
  for (const Shape &s : shapes) {
    if (p.m < s.bm || p.n < s.bn)
      continue;
    KernelTiling t = wgmmaTiling(s.bm, s.bn, s.consumers, s.stages);
    if (!wantsSplitK(p, t, target))
      return std::nullopt;
    growSplitK(p, t, target.smCount);
    if (4 * blockCount(p, t) * t.splitK >= 3 * target.smCount)
      return t;
  }
  return std::nullopt;
}

/// Decode on sm_90a: the wgmma kernel under a 64x128 tile, M of at most 16
/// rows (A's box reads TMA's zero fill past M), so B streams through TMA
/// bulk copies. On the H200, 16x11008x4096 with B [N, K]: 31.2 us against
/// mma.sync 16x64's 36.2 and cuBLAS's 27.3; 64x64 tiles 47 us, 64x256 40,
/// 4 or 8 stages 34 (docs/benchmarks/h200-2026-12-04-decode-wgmma). One
/// shape was measured, so only that class: K-major A and B with rows TMA
/// can stride over, one batch, K of at least 1024, and between half a wave
/// and one wave of tiles.
std::optional<KernelTiling> chooseWgmmaDecodeTiling(const GemmProblem &p,
                                                    const TargetInfo &target) {
  bool kMajor = !p.transposeA && p.transposeB;
  int64_t tiles = tileCount(p, 64, 128);
  if (!target.hasWgmma || !kMajor || p.k % 8 != 0 || p.m > 16 || p.batched ||
      p.k < 1024 || p.hasSoftmax || 2 * tiles < target.smCount ||
      tiles > target.smCount)
    return std::nullopt;
  return wgmmaTiling(64, 128, 1, 6);
}

/// An mma.sync block tile: bm x bn outputs over wm x wn warps.
struct MmaShape {
  int64_t bm, bn, wm, wn;
};

/// The first of `shapes` (largest first) whose block tiles make at least a
/// wave of blocks, else the last: the largest tile that still fills the SMs.
template <typename Shape>
Shape firstShapeFillingChip(const GemmProblem &p, const TargetInfo &target,
                            ArrayRef<Shape> shapes) {
  for (const Shape &s : shapes)
    if (tileCount(p, s.bm, s.bn) >= target.smCount)
      return s;
  return shapes.back();
}

/// Decode-like M takes 16- or 32-row mma.sync tiles; others keep `pick`.
MmaShape withDecodeRows(const GemmProblem &p, MmaShape pick) {
  if (p.m <= 16)
    return {16, 64, 1, 4};
  if (p.m <= 32)
    return {32, 64, 2, 2};
  return pick;
}

/// The mma.sync tiling of `shape`, K and stages at their defaults.
KernelTiling mmaTiling(const MmaShape &shape) {
  KernelTiling t;
  t.blockM = shape.bm;
  t.blockN = shape.bn;
  t.warpsM = shape.wm;
  t.warpsN = shape.wn;
  return t;
}

/// Switches `t` to the tensor-core path when the problem fits it: f16/bf16
/// operands accumulating in f32. (Operands whose rows 16-byte copies cannot
/// read are loaded through registers.) The block tile is the largest that
/// still gives about one wave of blocks.
std::optional<KernelTiling> chooseTensorCoreTiling(const GemmProblem &p,
                                                   const TargetInfo &target) {
  bool halfInputs = (p.lhsType.isF16() && p.rhsType.isF16()) ||
                    (p.lhsType.isBF16() && p.rhsType.isBF16());
  // Matrix-vector shapes (N < 16) would waste most of every m16n8k16.
  if (!halfInputs || !p.accType.isF32() || p.n < 16)
    return std::nullopt;
  // Skinny shapes stay on mma.sync; huge K takes wgmma split-K on sm_90a
  // where the split fills the chip, else mma.sync split-K.
  int64_t wideBlocks = tileCount(p, 128, 128);
  if (2 * wideBlocks >= target.smCount)
    if (std::optional<KernelTiling> hopper = chooseWgmmaTiling(p, target))
      return hopper;
  if (std::optional<KernelTiling> split = chooseWgmmaSplitTiling(p, target))
    return split;
  if (std::optional<KernelTiling> decode = chooseWgmmaDecodeTiling(p, target))
    return decode;
  // 128x256 with eight 64x64 warp tiles measured fastest on the H200's
  // large shapes (docs/measurements/h200-2026-12-02-tc2); smaller tiles fill
  // the SMs on smaller problems, and 16- or 32-row tiles serve decode.
  const MmaShape shapes[] = {
      {128, 256, 2, 4}, {128, 128, 2, 2}, {64, 128, 2, 2}, {64, 64, 2, 2}};
  MmaShape pick = firstShapeFillingChip<MmaShape>(p, target, shapes);
  // Operands that need register loads (rows not 16-byte aligned) hold a
  // K-tile in registers too: the smaller tile keeps them from spilling.
  bool aligned = (p.transposeA ? p.m : p.k) % 8 == 0 &&
                 (p.transposeB ? p.k : p.n) % 8 == 0;
  if (!aligned && pick.bn == 256)
    pick = {128, 128, 2, 4};
  pick = withDecodeRows(p, pick);
  // 32 rows over an N of at least four waves of 128-wide tiles: 32x128
  // with four warps along N. A stand-in LLM's script ran Qwen2.5-7B's
  // head, 32x152064x3584, in 0.416 ms against 32x64's 0.591 on an H100
  // (docs/benchmarks/2026-12-07-tuning-at-scale).
  if (pick.bm == 32 && tileCount(p, 32, 128) >= 4 * target.smCount)
    pick = {32, 128, 1, 4};
  KernelTiling t = mmaTiling(pick);
  // Copies move 8 elements per thread and must split evenly over the block.
  int64_t threads = 32 * pick.wm * pick.wn;
  if (pick.bn == 256) {
    // Half the barriers per K; three stages keep it within shared memory.
    t.blockK = 64;
    t.stages = 3;
  }
  // 32-row tiles stream B: K-tiles of 64 (as 16-row tiles get from the
  // copy rule below) halve their barriers. The stand-in LLM's 32x64 with
  // block_k 64 ran 32x18944x3584 in 66 us against 79 with 32 (H100).
  if (pick.bm == 32)
    t.blockK = 64;
  while (t.blockK < 128 && ((pick.bm * t.blockK / 8) % threads ||
                            (pick.bn * t.blockK / 8) % threads))
    t.blockK *= 2;
  if (aligned)
    if (std::optional<KernelTiling> wide = chooseHugeKTiling(p, target))
      return wide;
  return finishBlockTiling(p, target, t);
}

/// TF32 on sm_90a: the wgmma kernel with K-tiles of 32 f32, legal only for
/// K-major operands (A stored [M, K], B stored [N, K]: nn.Linear) with
/// 16-byte rows, unbatched, and only where 128x256 tiles fill the chip
/// (the measured configuration). On the H200, 1024x8192x8192 bias+relu:
/// 0.345 ms against cuBLAS TF32 0.334 and mma.sync TF32 0.981; 128x128
/// with one consumer took 0.688 (docs/benchmarks/h200-2026-12-04-tf32-wgmma).
std::optional<KernelTiling> chooseTf32WgmmaTiling(const GemmProblem &p,
                                                  const TargetInfo &target) {
  bool kMajor = !p.transposeA && p.transposeB;
  if (!target.hasWgmma || p.f32Precision != "tf32" || !kMajor || p.batched ||
      p.k % 4 != 0 || p.hasSoftmax)
    return std::nullopt;
  int64_t wide = tileCount(p, 128, 256);
  if (p.m < 128 || p.n < 256 || wide < target.smCount)
    return std::nullopt;
  KernelTiling t = wgmmaTiling(128, 256, 2, 4);
  t.blockK = 32;
  t.f32Precision = p.f32Precision;
  if (p.k >= 512)
    t.groupRows = 16;
  return t;
}

/// FP8 (f8E4M3FN or f8E5M2) on sm_90a: the wgmma kernel with K-tiles of
/// 128 elements (one 128-byte swizzle row, as for bf16), legal only with
/// both operands K-major (A stored [M, K], B stored [N, K], as serving
/// stacks keep FP8 weights) and rows of 16 bytes. Tiles as for bf16: 128x256
/// with two consumers, persistent with TMA stores, where they fill the
/// chip; 128x128 with one consumer below a wave; 64x128 for decode-sized M.
/// Elsewhere FP8 takes the SIMT path, which widens every element.
std::optional<KernelTiling> chooseFp8Tiling(const GemmProblem &p,
                                            const TargetInfo &target) {
  bool kMajor = !p.transposeA && p.transposeB;
  if (!target.hasWgmma || !isFloat8(p.lhsType) || p.lhsType != p.rhsType ||
      !p.accType.isF32() || !kMajor || p.k % 16 != 0 || p.batched ||
      p.hasSoftmax)
    return std::nullopt;
  int64_t wide = tileCount(p, 128, 256);
  KernelTiling t = wide >= target.smCount ? wgmmaTiling(128, 256, 2, 4)
                   : p.m <= 64            ? wgmmaTiling(64, 128, 1, 6)
                                          : wgmmaTiling(128, 128, 1, 6);
  t.blockK = 128;
  if (wide >= target.smCount && p.resultType.getIntOrFloatBitWidth() == 16 &&
      tmaStoresRows(p) && p.transcendentalOps == 0) {
    t.persistentBlocks = target.smCount;
    t.tmaStore = true;
  }
  if (wide >= target.smCount && p.k >= 512)
    t.groupRows = 16;
  return t;
}

/// f32 operands where the user allowed TF32 (the dispatch's
/// `vibegemm.f32_precision`): the mma.sync kernel with m16n8k8 TF32 MMAs.
/// f32 tiles take twice the shared memory of bf16 ones, so the widest tile
/// is 128x128 (64x64 warp tiles) with block_k 32 in three stages (about
/// 107 KiB); smaller tiles fill the chip on smaller problems, as on the
/// bf16 path, and split-K serves huge K.
std::optional<KernelTiling> chooseTf32Tiling(const GemmProblem &p,
                                             const TargetInfo &target) {
  if (p.f32Precision.empty() || !p.lhsType.isF32() || !p.rhsType.isF32() ||
      !p.accType.isF32() || p.m < 16 || p.n < 16)
    return std::nullopt;
  if (std::optional<KernelTiling> hopper = chooseTf32WgmmaTiling(p, target))
    return hopper;
  const MmaShape shapes[] = {{128, 128, 2, 2}, {64, 128, 2, 2}, {64, 64, 2, 2}};
  KernelTiling t = mmaTiling(
      withDecodeRows(p, firstShapeFillingChip<MmaShape>(p, target, shapes)));
  t.blockK = 32;
  t.stages = 3;
  t.f32Precision = p.f32Precision;
  return finishBlockTiling(p, target, t);
}

/// The FFMA kernel stages an operand whose rows run along M or N with
/// 16-byte copies only where those rows are 16-byte aligned (K-contiguous
/// ones always take 4-byte copies); a misaligned one is copied into a
/// padded buffer first where the GEMM does enough work per element to pay
/// for it. Predicted for 8205x2949x5921 (B's rows 2949 floats): the kernel
/// as fast as an aligned one (~43 TFLOP/s, 6.7 ms against 8.6), for one
/// 70 MB copy (~0.03 ms).
std::optional<KernelTiling> withFfmaAlignment(const GemmProblem &p,
                                              std::optional<KernelTiling> t) {
  if (!t)
    return t;
  auto consider = [&](int64_t operand, bool outerContiguous, int64_t rowLength,
                      int64_t elements) {
    double intensity = 2.0 * p.batch * p.m * p.n * p.k / elements;
    if (outerContiguous && rowLength % 4 && intensity >= 512)
      t->alignOperands.push_back(operand);
  };
  consider(0, p.transposeA, p.m, p.batch * p.m * p.k);
  consider(1, !p.transposeB, p.n, p.batch * p.k * p.n);
  return t;
}

/// The CUDA-core path for f32 operands accumulating in f32 (no TF32): FFMA
/// register tiles fed by a cp.async ring. The block tile is the largest
/// that still gives about one wave of blocks; decode-like M gets short
/// tiles.
std::optional<KernelTiling> chooseFfmaTiling(const GemmProblem &p,
                                             const TargetInfo &target) {
  if (!p.lhsType.isF32() || !p.rhsType.isF32() || !p.accType.isF32() ||
      p.m < 16 || p.n < 16)
    return std::nullopt;
  struct Shape {
    int64_t bm, bn, tm, tn;
  };
  auto ffmaTiling = [](const Shape &s) {
    KernelTiling t;
    t.path = KernelPath::Ffma;
    t.blockM = s.bm;
    t.blockN = s.bn;
    t.threadM = s.tm;
    t.threadN = s.tn;
    t.warpsM = t.warpsN = 0;
    t.blockK = 16;
    t.stages = 3;
    return t;
  };
  // 256 threads each.
  const Shape shapes[] = {{128, 128, 8, 8}, {64, 128, 4, 8}, {64, 64, 4, 4}};
  Shape pick = firstShapeFillingChip<Shape>(p, target, shapes);
  // Huge K over a small output: the 128x128 tile split until the grid
  // fills the chip beats smaller tiles split less, whose 4x4 thread tiles
  // load a value per FFMA or two, and block_k 32 in two stages beats 16 in
  // three (256x256x524288 on the H200: 1.52 ms, against 1.64 and 2.18;
  // docs/benchmarks/h200-2026-12-04-splitk). Only where the output fills
  // the tile: smaller ones keep the rules below (a 32x32 output would give
  // the 128x128 tile 16 threads).
  if (pick.bm < 128 && p.m >= 128 && p.n >= 128) {
    KernelTiling wide = ffmaTiling(shapes[0]);
    wide.blockK = 32;
    wide.stages = 2;
    if (wantsSplitK(p, wide, target)) {
      growSplitK(p, wide, 2 * target.smCount);
      if (blockCount(p, wide) * wide.splitK >= target.smCount)
        return withFfmaAlignment(p, wide);
    }
  }
  if (p.m <= 16)
    pick = {16, 128, 4, 8};
  else if (p.m <= 32)
    pick = {32, 128, 4, 8};
  // The kernel runs a power-of-two count of threads across each side of
  // the tile it gets (the block tile, or the whole problem where smaller);
  // small problems take 4x4 per thread to reach a warp, or the SIMT path.
  auto threadsAlong = [](int64_t extent, int64_t tile, int64_t perThread) {
    return static_cast<int64_t>(llvm::PowerOf2Ceil(
        llvm::divideCeil(std::min(extent, tile), perThread)));
  };
  auto threads = [&] {
    return threadsAlong(p.m, pick.bm, pick.tm) *
           threadsAlong(p.n, pick.bn, pick.tn);
  };
  if (threads() < 32)
    pick.tm = pick.tn = 4;
  if (threads() < 32)
    return std::nullopt;
  return withFfmaKTiles(
      p, withFfmaAlignment(p, finishBlockTiling(p, target, ffmaTiling(pick))));
}

} // namespace

StringRef vibegemm::kernelPathName(KernelPath path) {
  switch (path) {
  case KernelPath::MmaSync:
    return "tensor_core";
  case KernelPath::Wgmma:
    return "wgmma";
  case KernelPath::Ffma:
    return "ffma";
  case KernelPath::BlockReduce:
    return "block_reduce";
  }
  llvm_unreachable("unknown kernel path");
}

int64_t vibegemm::softmaxThreadsFor(const GemmProblem &p) {
  return threadsFor(p.n, 128 / p.lhsType.getIntOrFloatBitWidth(), 4);
}

SimtTiling vibegemm::chooseSimtTiling(const GemmProblem &problem,
                                      const TargetInfo &target) {
  SimtTiling t;
  // Large problems get 128x128 block tiles with 8x8 register tiles (256
  // threads); smaller ones 64x64 with 4x4 so the grid still fills the chip.
  int64_t blocks128 = problem.batch * llvm::divideCeil(problem.m, 128) *
                      llvm::divideCeil(problem.n, 128);
  if (blocks128 >= target.smCount) {
    t.blockM = t.blockN = 128;
    t.threadM = t.threadN = 8;
    t.blockK = 8;
  } else {
    t.blockM = t.blockN = 64;
    t.threadM = t.threadN = 4;
    t.blockK = 16;
  }
  // Skinny (decode-like) shapes waste a tall tile.
  while (t.blockM > t.threadM && t.blockM / 2 >= problem.m)
    t.blockM /= 2;
  while (t.blockN > t.threadN && t.blockN / 2 >= problem.n)
    t.blockN /= 2;
  tryStagedPath(problem, t);
  if (isFloat8(problem.lhsType)) {
    t.kernel = chooseFp8Tiling(problem, target);
    return t;
  }
  t.kernel = chooseBlockReduceTiling(problem, target);
  if (!t.kernel)
    t.kernel = chooseTensorCoreTiling(problem, target);
  if (!t.kernel)
    t.kernel = chooseTf32Tiling(problem, target);
  if (!t.kernel)
    t.kernel = chooseFfmaTiling(problem, target);
  return t;
}

SimtTiling vibegemm::referenceTiling() {
  SimtTiling t;
  t.blockM = t.blockN = 16;
  t.threadM = t.threadN = 1;
  t.reference = true;
  t.fallbackReason = "reference: one output per thread, each op its own "
                     "kernel";
  return t;
}
