//===- BuiltinScheduler.cpp - The scheduler that needs no LLM -------------===//
//
// Chooses a SIMT tiling from the problem shape and writes it as a transform
// script: block tiles over M and N (and batch), the fill, GEMM and fused
// epilogue pulled into one kernel, a register tile per thread, then
// bufferization and the mapping to blocks and threads.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Scheduler/BuiltinScheduler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Output tile of the split-K combining kernel's blocks: one output per
/// thread of its 16x16 threads.
constexpr int64_t kCombineTile = 16;

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

/// How many bm x bn output tiles `p` has, over all batches.
int64_t tileCount(const GemmProblem &p, int64_t bm, int64_t bn) {
  return p.batch * llvm::divideCeil(p.m, bm) * llvm::divideCeil(p.n, bn);
}

/// A wgmma tiling: K steps of 64, `consumers` warpgroups over the tile.
TensorCoreTiling wgmmaTiling(int64_t blockM, int64_t blockN, int64_t consumers,
                             int64_t stages) {
  TensorCoreTiling t;
  t.wgmma = true;
  t.blockM = blockM;
  t.blockN = blockN;
  t.consumers = consumers;
  t.stages = stages;
  t.blockK = 64;
  t.warpsM = t.warpsN = 0;
  return t;
}

/// Whether TMA can store `p`'s output rows: a multiple of 16 bytes each.
bool tmaStoresRows(const GemmProblem &p) {
  Type result = p.resultType;
  return result && result.isIntOrFloat() &&
         p.n * result.getIntOrFloatBitWidth() % 128 == 0;
}

/// The Hopper path for sm_90a: any of the four layouts, at least 64 rows
/// and columns, batched or not (3-D tensor maps). Operands whose rows TMA
/// cannot stride over (not a multiple of 16 bytes) are copied into padded
/// buffers first, when the GEMM does enough work per element to pay for
/// the copy. 128x256 tiles with two consumer warpgroups where they fill the
/// chip, else 128x128 with one.
std::optional<TensorCoreTiling> chooseWgmmaTiling(const GemmProblem &p,
                                                  const TargetInfo &target) {
  bool rowsAligned = (p.transposeA ? p.m : p.k) % 8 == 0 &&
                     (p.transposeB ? p.k : p.n) % 8 == 0;
  // FLOPs per operand element: the copies add one read and write each.
  double intensity = 2.0 * p.m * p.n * p.k / (p.m * p.k + p.k * p.n);
  if (!target.hasWgmma || (!rowsAligned && intensity < 512) ||
      p.m < 64 || p.n < 64)
    return std::nullopt;
  int64_t wide = tileCount(p, 128, 256);
  TensorCoreTiling t = wide >= target.smCount ? wgmmaTiling(128, 256, 2, 4)
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
  if (!rowsAligned) {
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

/// Threads of each block of a softmax consumer's kernel (one row of N per
/// block, `transform.vibegemm.softmax_to_block_reduce`).
int64_t softmaxThreadsFor(const GemmProblem &p) {
  return threadsFor(p.n, 128 / p.lhsType.getIntOrFloatBitWidth(), 4);
}

/// The block mapping of a softmax kernel: rows along x, batches along y.
StringRef softmaxBlockMap(const GemmProblem &p) {
  return p.batched ? "#gpu.block<y>, #gpu.block<x>" : "#gpu.block<x>";
}

/// Tiles the softmax (handle `%softmax`) to one row per block.
void writeSoftmaxRowTiling(llvm::raw_ostream &os, const GemmProblem &p) {
  os << llvm::formatv(
      "  %softmax_b, %softmax_blk = transform.structured.tile_using_forall "
      "%softmax tile_sizes [{0}] (mapping = [{1}]) : "
      "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
      p.batched ? "1, 1" : "1", softmaxBlockMap(p));
}

/// After bufferization (`%{buffers}`): the softmax's row loop becomes a
/// launch and `softmax_to_block_reduce` its body, which computes in f32.
void writeSoftmaxRowKernel(llvm::raw_ostream &os, const GemmProblem &p,
                           StringRef buffers) {
  os << llvm::formatv(
      "  %softmax_buf = transform.structured.match ops{{[\"linalg.softmax\"]} "
      "in %{0} : {1}\n"
      "  %softmax_blocks = transform.get_parent_op %softmax_buf {{op_name = "
      "\"scf.forall\"} : {1}\n"
      "  %softmax_launch = transform.gpu.map_forall_to_blocks "
      "%softmax_blocks generate_gpu_launch : {1}\n"
      "  %softmax_mapped = transform.structured.match "
      "ops{{[\"linalg.softmax\"]} in %softmax_launch : {1}\n"
      "  %row_loop = transform.vibegemm.softmax_to_block_reduce "
      "%softmax_mapped {{threads = {2}} : {1}\n",
      buffers, "(!transform.any_op) -> !transform.any_op",
      softmaxThreadsFor(p));
}

/// Rows of a matrix-vector product's matrix: M for A·b, N for a·Bᵀ.
int64_t matrixRows(const GemmProblem &p) { return p.n == 1 ? p.m : p.n; }

/// The block-tile extent along those rows: block_m for A·b, block_n for
/// a·Bᵀ.
int64_t &matrixRowTile(const GemmProblem &p, TensorCoreTiling &t) {
  return p.n == 1 ? t.blockM : t.blockN;
}

/// Matrix-vector shapes (M or N of 1) whose matrix is read along K: one
/// output per block (two for 16-bit inputs), the block's threads splitting
/// K, so the matrix streams from HBM at full width. Any of f16, bf16 and
/// f32.
std::optional<TensorCoreTiling> chooseBlockReduceTiling(const GemmProblem &p) {
  bool sameInputs = p.lhsType == p.rhsType &&
                    (p.lhsType.isF16() || p.lhsType.isBF16() ||
                     p.lhsType.isF32());
  // The matrix must be K-contiguous: A [M, K] for N = 1, B [N, K] for M = 1.
  bool matrixAlongK = (p.n == 1 && !p.transposeA) || (p.m == 1 && p.transposeB);
  if (!sameInputs || !p.accType.isF32() || p.batched || p.hasSoftmax ||
      !matrixAlongK || p.m * p.n < 2 || p.k < 256)
    return std::nullopt;
  TensorCoreTiling t;
  t.blockReduce = true;
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
  return t;
}

/// Output tiles of `t` over the whole problem.
int64_t blockCount(const GemmProblem &p, const TensorCoreTiling &t) {
  return tileCount(p, t.blockM, t.blockN);
}

/// Whether split-K can serve `p` with `t`'s tiles: too few of them to half
/// fill the chip, no batch or softmax, and M and N multiples of the
/// combining kernel's 16x16 tiles (a ragged one would give its threads'
/// private tiles a dynamic size).
bool wantsSplitK(const GemmProblem &p, const TensorCoreTiling &t,
                 const TargetInfo &target) {
  return !p.batched && !p.hasSoftmax &&
         2 * blockCount(p, t) < target.smCount &&
         p.m % kCombineTile == 0 && p.n % kCombineTile == 0;
}

/// Doubles `t.splitK` while the grid stays within `maxBlocks`, K splits
/// into whole K-tiles and each split keeps at least 1024 of K.
void growSplitK(const GemmProblem &p, TensorCoreTiling &t, int64_t maxBlocks) {
  int64_t blocks = blockCount(p, t);
  while (blocks * t.splitK * 2 <= maxBlocks &&
         p.k % (t.splitK * 2 * t.blockK) == 0 && p.k / (t.splitK * 2) >= 1024)
    t.splitK *= 2;
}

/// Split-K for the block-tiled paths (mma.sync, FFMA): with too few blocks
/// for the chip and a long K, split K until about two blocks per SM. A grid
/// of one block folds the block loop away before the rewrite can find it;
/// such tiny problems keep the SIMT schedule.
std::optional<TensorCoreTiling> finishBlockTiling(const GemmProblem &p,
                                                  const TargetInfo &target,
                                                  TensorCoreTiling t) {
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
std::optional<TensorCoreTiling> chooseHugeKTiling(const GemmProblem &p,
                                                  const TargetInfo &target) {
  TensorCoreTiling t;
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
std::optional<TensorCoreTiling> chooseWgmmaSplitTiling(const GemmProblem &p,
                                                       const TargetInfo &target) {
  bool rowsAligned = (p.transposeA ? p.m : p.k) % 8 == 0 &&
                     (p.transposeB ? p.k : p.n) % 8 == 0;
  if (!target.hasWgmma || !rowsAligned || p.m < 64 || p.n < 64)
    return std::nullopt;
  struct Shape {
    int64_t bm, bn, consumers, stages;
  };
  const Shape shapes[] = {{128, 256, 2, 4}, {128, 128, 1, 6}, {64, 128, 1, 6}};
  for (const Shape &s : shapes) {
    if (p.m < s.bm || p.n < s.bn)
      continue;
    TensorCoreTiling t = wgmmaTiling(s.bm, s.bn, s.consumers, s.stages);
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
std::optional<TensorCoreTiling>
chooseWgmmaDecodeTiling(const GemmProblem &p, const TargetInfo &target) {
  bool kMajor = !p.transposeA && p.transposeB;
  int64_t tiles = tileCount(p, 64, 128);
  if (!target.hasWgmma || !kMajor || p.k % 8 != 0 || p.m > 16 ||
      p.batched || p.k < 1024 || p.hasSoftmax ||
      2 * tiles < target.smCount || tiles > target.smCount)
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
TensorCoreTiling mmaTiling(const MmaShape &shape) {
  TensorCoreTiling t;
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
std::optional<TensorCoreTiling> chooseTensorCoreTiling(const GemmProblem &p,
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
    if (std::optional<TensorCoreTiling> hopper = chooseWgmmaTiling(p, target))
      return hopper;
  if (std::optional<TensorCoreTiling> split = chooseWgmmaSplitTiling(p, target))
    return split;
  if (std::optional<TensorCoreTiling> decode =
          chooseWgmmaDecodeTiling(p, target))
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
  TensorCoreTiling t = mmaTiling(pick);
  // Copies move 8 elements per thread and must split evenly over the block.
  int64_t threads = 32 * pick.wm * pick.wn;
  if (pick.bn == 256) {
    // Half the barriers per K; three stages keep it within shared memory.
    t.blockK = 64;
    t.stages = 3;
  }
  while (t.blockK < 128 && ((pick.bm * t.blockK / 8) % threads ||
                            (pick.bn * t.blockK / 8) % threads))
    t.blockK *= 2;
  if (aligned)
    if (std::optional<TensorCoreTiling> wide = chooseHugeKTiling(p, target))
      return wide;
  return finishBlockTiling(p, target, t);
}

/// TF32 on sm_90a: the wgmma kernel with K-tiles of 32 f32, legal only for
/// K-major operands (A stored [M, K], B stored [N, K]: nn.Linear) with
/// 16-byte rows, unbatched, and only where 128x256 tiles fill the chip
/// (the measured configuration). On the H200, 1024x8192x8192 bias+relu:
/// 0.345 ms against cuBLAS TF32 0.334 and mma.sync TF32 0.981; 128x128
/// with one consumer took 0.688 (docs/benchmarks/h200-2026-12-04-tf32-wgmma).
std::optional<TensorCoreTiling>
chooseTf32WgmmaTiling(const GemmProblem &p, const TargetInfo &target) {
  bool kMajor = !p.transposeA && p.transposeB;
  if (!target.hasWgmma || p.f32Precision != "tf32" || !kMajor ||
      p.batched || p.k % 4 != 0 || p.hasSoftmax)
    return std::nullopt;
  int64_t wide = tileCount(p, 128, 256);
  if (p.m < 128 || p.n < 256 || wide < target.smCount)
    return std::nullopt;
  TensorCoreTiling t = wgmmaTiling(128, 256, 2, 4);
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
std::optional<TensorCoreTiling> chooseFp8Tiling(const GemmProblem &p,
                                                const TargetInfo &target) {
  bool kMajor = !p.transposeA && p.transposeB;
  if (!target.hasWgmma || !isFloat8(p.lhsType) ||
      p.lhsType != p.rhsType || !p.accType.isF32() || !kMajor ||
      p.k % 16 != 0 || p.batched || p.hasSoftmax)
    return std::nullopt;
  int64_t wide = tileCount(p, 128, 256);
  TensorCoreTiling t = wide >= target.smCount ? wgmmaTiling(128, 256, 2, 4)
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
std::optional<TensorCoreTiling> chooseTf32Tiling(const GemmProblem &p,
                                                 const TargetInfo &target) {
  if (p.f32Precision.empty() || !p.lhsType.isF32() || !p.rhsType.isF32() ||
      !p.accType.isF32() || p.m < 16 || p.n < 16)
    return std::nullopt;
  if (std::optional<TensorCoreTiling> hopper = chooseTf32WgmmaTiling(p, target))
    return hopper;
  const MmaShape shapes[] = {{128, 128, 2, 2}, {64, 128, 2, 2}, {64, 64, 2, 2}};
  TensorCoreTiling t = mmaTiling(
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
std::optional<TensorCoreTiling>
withFfmaAlignment(const GemmProblem &p, std::optional<TensorCoreTiling> t) {
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

/// K-tiles of 32 in two stages instead of 16 in three on the 128x128 tile
/// (8x8 per thread) where an operand is staged with 16-byte copies (rows
/// along M or N, aligned or padded): half the barriers per K, for 66 KB of
/// shared memory against 50 (still two blocks per SM). On the H200: 4096^3
/// 3.18 -> 2.96 ms, 2048x4096x8192 NN 3.22 -> 2.97, A stored [K, M] with
/// B [N, K] 3.19 -> 2.96, batched 6.70 -> 5.81, A [K, M] with B [K, N]
/// unchanged (2.89 -> 2.88). With both operands K-contiguous (4-byte
/// copies) it lost (3.14 -> 3.17), so those keep 16 in three
/// (docs/benchmarks/h200-2026-12-04-ffma-ktiles). K under two such tiles
/// keeps 16: a tile of 32 would be mostly zero fill.
std::optional<TensorCoreTiling>
withFfmaKTiles(const GemmProblem &p, std::optional<TensorCoreTiling> t) {
  if (!t || t->blockM != 128 || t->blockN != 128 || t->threadM != 8 ||
      t->threadN != 8 || t->splitK > 1 || p.k < 64)
    return t;
  auto padded = [&](int64_t operand) {
    return llvm::is_contained(t->alignOperands, operand);
  };
  bool wideA = p.transposeA && (p.m % 4 == 0 || padded(0));
  bool wideB = !p.transposeB && (p.n % 4 == 0 || padded(1));
  if (wideA || wideB) {
    t->blockK = 32;
    t->stages = 2;
  }
  return t;
}

/// The CUDA-core path for f32 operands accumulating in f32 (no TF32): FFMA
/// register tiles fed by a cp.async ring. The block tile is the largest
/// that still gives about one wave of blocks; decode-like M gets short
/// tiles.
std::optional<TensorCoreTiling> chooseFfmaTiling(const GemmProblem &p,
                                                 const TargetInfo &target) {
  if (!p.lhsType.isF32() || !p.rhsType.isF32() || !p.accType.isF32() ||
      p.m < 16 || p.n < 16)
    return std::nullopt;
  struct Shape {
    int64_t bm, bn, tm, tn;
  };
  auto ffmaTiling = [](const Shape &s) {
    TensorCoreTiling t;
    t.ffma = true;
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
  const Shape shapes[] = {
      {128, 128, 8, 8}, {64, 128, 4, 8}, {64, 64, 4, 4}};
  Shape pick = firstShapeFillingChip<Shape>(p, target, shapes);
  // Huge K over a small output: the 128x128 tile split until the grid
  // fills the chip beats smaller tiles split less, whose 4x4 thread tiles
  // load a value per FFMA or two, and block_k 32 in two stages beats 16 in
  // three (256x256x524288 on the H200: 1.52 ms, against 1.64 and 2.18;
  // docs/benchmarks/h200-2026-12-04-splitk). Only where the output fills
  // the tile: smaller ones keep the rules below (a 32x32 output would give
  // the 128x128 tile 16 threads).
  if (pick.bm < 128 && p.m >= 128 && p.n >= 128) {
    TensorCoreTiling wide = ffmaTiling(shapes[0]);
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

/// FFMA tilings that race the choice where candidates are measured. The
/// choice takes the largest block tile that still gives a wave of blocks;
/// at the sizes of a transformer layer (1024x3072x768) that is 192 tiles of
/// 128x128 for 132 SMs holding two each, a partial second wave, where
/// cuBLAS runs 768 tiles of 64x64 with 128 threads of 8x4 (Nsight Compute
/// on an H100: 122 us against vibegemm's 162). So it races: the next
/// smaller tile (where the 128x128 grid is short of two waves); the same
/// tile with half the threads, each twice the outputs (more FFMAs per
/// shared load); and where the grid is short, the 128x128 tile split along
/// K until it fills the chip.
llvm::SmallVector<TilingVariant, 4> ffmaVariants(const GemmProblem &p,
                                                 const SimtTiling &chosen,
                                                 const TargetInfo &target) {
  const TensorCoreTiling &t = *chosen.tensorCore;
  llvm::SmallVector<TilingVariant, 4> variants;
  auto add = [&](StringRef name, std::optional<TensorCoreTiling> v) {
    if (!v || (v->blockM == t.blockM && v->blockN == t.blockN &&
               v->threadM == t.threadM && v->threadN == t.threadN &&
               v->splitK == t.splitK))
      return;
    SimtTiling variant = chosen;
    variant.tensorCore = v;
    variants.push_back({name.str(), variant});
  };
  auto shaped = [&](int64_t bm, int64_t bn, int64_t tm, int64_t tn) {
    TensorCoreTiling v = t;
    v.blockM = bm;
    v.blockN = bn;
    v.threadM = tm;
    v.threadN = tn;
    v.blockK = 16;
    v.stages = 3;
    v.splitK = 1;
    return v;
  };
  // Only where the 128x128 grid is under two waves of two blocks an SM:
  // with more, the partial last wave costs little.
  if (t.splitK == 1 && t.blockM == 128 && t.blockN == 128 &&
      p.m >= 64 && p.n >= 128 && blockCount(p, t) < 4 * target.smCount)
    add("tile-64x128", withFfmaKTiles(p, shaped(64, 128, 4, 8)));
  if (t.splitK == 1 && t.threadM == 4 && p.m >= t.blockM)
    add("threads-half", withFfmaKTiles(p, shaped(t.blockM, t.blockN, 8,
                                                 t.threadN)));
  if (t.splitK == 1 && !(t.blockM == 128 && t.blockN == 128) &&
      p.m >= 128 && p.n >= 128) {
    TensorCoreTiling wide = shaped(128, 128, 8, 8);
    wide.blockK = 32;
    wide.stages = 2;
    if (!p.batched && !p.hasSoftmax && p.m % kCombineTile == 0 &&
        p.n % kCombineTile == 0) {
      growSplitK(p, wide, 2 * target.smCount);
      if (wide.splitK > 1)
        add("split-wide", wide);
    }
  }
  return variants;
}

} // namespace

llvm::SmallVector<TilingVariant, 4>
vibegemm::alternativeTilings(const GemmProblem &problem,
                             const SimtTiling &chosen,
                             const TargetInfo &target) {
  const std::optional<TensorCoreTiling> &t = chosen.tensorCore;
  // The matvec's choice pairs rows for 16-bit inputs (one row a block
  // races it); otherwise 512-thread blocks and the pair race one row of
  // 1024 threads, which take 34 registers (ptxas, bf16), so one block fits
  // an SM and 256 rows run in two waves (512 threads: 29.0 -> 28.6 us on
  // an H100; 256 threads ran 36.4).
  if (t && t->blockReduce) {
    auto withRows = [&](int64_t rows) {
      SimtTiling v = chosen;
      matrixRowTile(problem, *v.tensorCore) = rows;
      return v;
    };
    if (t->blockM * t->blockN == 2)
      return {{"rows-1", withRows(1)}};
    llvm::SmallVector<TilingVariant, 4> variants;
    if (t->threads > 512) {
      SimtTiling smaller = chosen;
      smaller.tensorCore->threads = 512;
      variants.push_back({"threads-512", smaller});
    }
    if (matrixRows(problem) % 2 == 0)
      variants.push_back({"rows-2", withRows(2)});
    return variants;
  }
  if (t && t->ffma)
    return ffmaVariants(problem, chosen, target);
  if (!t || !t->wgmma || t->clusterRows != 1 || !t->f32Precision.empty())
    return {};
  // Split-K over a small output under the 64x128 tile reads B once per 64
  // rows of M. A 128x128 tile split twice as finely keeps the block count,
  // halves each block's serial K-tiles and reads each operand once
  // (128x128x65536: 48 -> 32 MB from L2; DRAM stays about 34 MB, as L2
  // serves the repeated B reads; f32 partials 4 -> 8 MB, written and read
  // again). The split GEMM measured latency-bound (h200-2026-12-04-splitk).
  if (t->splitK > 1 && t->blockM == 64 && t->blockN == 128 &&
      problem.m >= 128) {
    SimtTiling wide = chosen;
    TensorCoreTiling &w = *wide.tensorCore;
    w.blockM = 128;
    w.splitK = 2 * t->splitK;
    if (problem.k % (w.splitK * w.blockK) || problem.k / w.splitK < 256)
      return {};
    return {{"split-wide", wide}};
  }
  if (t->blockM != 128 || t->blockN != 256 || t->consumers != 2 ||
      t->splitK != 1)
    return {};
  // The wide tile's choice for 16-bit outputs is the persistent kernel,
  // with TMA stores where the output rows allow. It races one block per
  // tile (4 stages, the epilogue storing from registers), which tied it on
  // 8192^3, and, with TMA stores, itself without them (3 stages), which won
  // by 1-2 % on some ragged shapes (h100-2026-12-05-edges). For f32
  // outputs and transcendental epilogues the choice is one block per
  // tile, and the persistent kernel races it with and without TMA stores.
  SimtTiling perTile = chosen;
  perTile.tensorCore->persistentBlocks = 0;
  perTile.tensorCore->tmaStore = false;
  perTile.tensorCore->stages = 4;
  SimtTiling persistent = perTile;
  persistent.tensorCore->persistentBlocks = target.smCount;
  persistent.tensorCore->stages = 3;
  SimtTiling persistentTma = perTile;
  persistentTma.tensorCore->persistentBlocks = target.smCount;
  persistentTma.tensorCore->tmaStore = true;
  // A residual read by the epilogue can come in by TMA through the staging
  // tile rather than element by element; not yet measured, so it races.
  // The whole tile is staged at once, beside 3 stages.
  auto withResidualLoads = [](SimtTiling v) {
    v.tensorCore->tmaLoadResidual = true;
    v.tensorCore->stages = 3;
    return v;
  };
  bool residual = problem.residualInputs == 1;
  if (!t->persistentBlocks) {
    llvm::SmallVector<TilingVariant, 4> variants = {{"persistent", persistent}};
    if (tmaStoresRows(problem)) {
      variants.push_back({"persistent-tma", persistentTma});
      if (residual)
        variants.push_back(
            {"persistent-tma-residual", withResidualLoads(persistentTma)});
    }
    return variants;
  }
  llvm::SmallVector<TilingVariant, 4> variants = {{"per-tile", perTile}};
  if (!t->tmaStore)
    return variants;
  variants.push_back({"persistent", persistent});
  if (residual)
    variants.push_back(
        {"persistent-tma-residual", withResidualLoads(chosen)});
  // Where the tile rows pair up, the choice in clusters of two blocks
  // along M that multicast B (cuBLAS's nvjet 1x2 kernel). With each slot
  // release fenced at GPU scope they ran 1.4-1.6x slower
  // (h200-2026-12-05-mbarrier-tma); with CTA scope 3 % slower on one shape
  // (h100-2026-12-05-edges).
  if (llvm::divideCeil(problem.m, t->blockM) % 2 == 0) {
    SimtTiling clustered = chosen;
    clustered.tensorCore->clusterRows = 2;
    variants.push_back({"persistent-cluster-tma", clustered});
  }
  return variants;
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
    t.tensorCore = chooseFp8Tiling(problem, target);
    return t;
  }
  t.tensorCore = chooseBlockReduceTiling(problem);
  if (!t.tensorCore)
    t.tensorCore = chooseTensorCoreTiling(problem, target);
  if (!t.tensorCore)
    t.tensorCore = chooseTf32Tiling(problem, target);
  if (!t.tensorCore)
    t.tensorCore = chooseFfmaTiling(problem, target);
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

namespace {

struct DispatchOps;
std::string writeTensorCoreSchedule(const GemmProblem &problem,
                                    const TensorCoreTiling &t,
                                    const DispatchOps &ops,
                                    StringRef sequenceName, StringRef comment);
std::string writeDirectSchedule(const GemmProblem &problem, const SimtTiling &t,
                                const DispatchOps &ops, StringRef sequenceName,
                                StringRef comment, bool cpuCheck);

/// Roles of the ops in a dispatch, in program order.
struct DispatchOps {
  bool hasInit = false;
  SmallVector<std::string> epilogues;
  bool hasSoftmax = false;
};

DispatchOps collectRoles(func::FuncOp dispatch) {
  DispatchOps ops;
  dispatch.walk([&](Operation *op) {
    auto role = op->getAttrOfType<StringAttr>(kRoleAttr);
    if (!role)
      return;
    if (role.getValue() == "init")
      ops.hasInit = true;
    else if (role.getValue().starts_with("epilogue"))
      ops.epilogues.push_back(role.getValue().str());
    else if (role.getValue() == "softmax")
      ops.hasSoftmax = true;
  });
  return ops;
}

/// How a schedule tiles a dispatch's chain: the op the block loop is built
/// around and the producers fused into it, last first, so each finds its
/// consumer inside the loop; plus the batch prefix of tile sizes and the
/// block mapping.
struct FusionPlan {
  bool fused = false;
  std::string anchor;
  SmallVector<std::string> producers;
  std::string lead, blockMap;
};

FusionPlan planFusion(const GemmProblem &problem, const DispatchOps &ops) {
  FusionPlan plan;
  // The last fused elementwise op anchors the tiling. Unfused epilogues get
  // kernels of their own instead.
  plan.fused = problem.fuseEpilogues && !ops.epilogues.empty();
  plan.anchor = plan.fused ? ops.epilogues.back() : "root";
  if (plan.fused) {
    for (int i = static_cast<int>(ops.epilogues.size()) - 2; i >= 0; --i)
      plan.producers.push_back(ops.epilogues[i]);
    plan.producers.push_back("root");
  }
  if (ops.hasInit)
    plan.producers.push_back("init");
  bool batched = problem.batched;
  plan.lead = batched ? "1, " : "";
  plan.blockMap = batched ? "#gpu.block<z>, #gpu.block<y>, #gpu.block<x>"
                          : "#gpu.block<y>, #gpu.block<x>";
  return plan;
}

/// Fuses each producer, in order, into the loop `loop` and then into the
/// loop each fusion returns: `%<p><from>` becomes `%<p><to>` and the loops
/// are `%<prefix>0`, `%<prefix>1`, ...
void writeFusions(llvm::raw_ostream &os, ArrayRef<std::string> producers,
                  StringRef from, StringRef to, std::string loop,
                  StringRef prefix) {
  for (auto [i, p] : llvm::enumerate(producers)) {
    std::string next = (prefix + Twine(i)).str();
    os << llvm::formatv(
        "  %{0}{1}, %{2} = transform.structured.fuse_into_containing_op "
        "%{0}{3} into %{4} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n",
        p, to, next, from, loop);
    loop = next;
  }
}

/// `%<role> = transform.structured.match attributes{vibegemm.role = ...}`
/// for the root, the init, each epilogue and (with `softmax`) the softmax.
void writeRoleMatches(llvm::raw_ostream &os, const DispatchOps &ops,
                      bool softmax) {
  auto match = [&](StringRef role) {
    os << llvm::formatv("  %{0} = transform.structured.match attributes"
                        "{{vibegemm.role = \"{0}\"} in %func : "
                        "(!transform.any_op) -> !transform.any_op\n",
                        role);
  };
  match("root");
  if (ops.hasInit)
    match("init");
  for (StringRef e : ops.epilogues)
    match(e);
  if (softmax && ops.hasSoftmax)
    match("softmax");
}

/// The staged SIMT schedule. `{KEY}` placeholders are filled by
/// writeSimtSchedule; lines starting with `E|` are kept only when the
/// dispatch has an epilogue, `N|` only when it has none, `G|` only for the
/// GPU and `C|` only for the CPU check. A softmax consumer comes in through
/// `{SOFTMAX_TILING}` and `{SOFTMAX_KERNEL}`.
constexpr llvm::StringLiteral kStagedTemplate =
    R"mlir(transform.named_sequence @{NAME}(%func: !transform.any_op {transform.consumed}) {
  // {COMMENT}
  // Staged SIMT schedule: block tiles over M and N, a K loop whose A and B
  // tiles are copied cooperatively into shared memory, a {TM}x{TN} register
  // tile per thread, and an accumulator that stays in registers.
  %block_m = transform.tune.knob<"block_m"> = {BM} : i64 from options = [4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
  %block_n = transform.tune.knob<"block_n"> = {BN} : i64 from options = [4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
  %block_k = transform.tune.knob<"block_k"> = {BK} : i64 from options = [8, 16, 32] -> !transform.param<i64>
  %thread_m = transform.tune.knob<"thread_m"> = {TM} : i64 from options = [2, 4, 8] -> !transform.param<i64>
  %thread_n = transform.tune.knob<"thread_n"> = {TN} : i64 from options = [2, 4, 8] -> !transform.param<i64>
  %root = transform.structured.match attributes{vibegemm.role = "root"} in %func : (!transform.any_op) -> !transform.any_op
  %init = transform.structured.match attributes{vibegemm.role = "init"} in %func : (!transform.any_op) -> !transform.any_op
E|  %epi = transform.structured.match attributes{vibegemm.role = "epilogue0"} in %func : (!transform.any_op) -> !transform.any_op
  // 1. Block tiles; the fill (and the GEMM under an epilogue) are fused in.
X|  // Ragged M or N: the fill runs as its own kernel, and the GEMM is split
X|  // into an interior the block tile divides and edges the direct schedule
X|  // covers, each accumulating onto the filled output.
X|  %fill_b, %fill_blk = transform.structured.tile_using_forall %init tile_sizes [%block_m, %block_n] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
X|  %fill_t, %fill_thr = transform.structured.tile_using_forall %fill_b num_threads [{BDY}, {BDX}] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
{SPLIT}
N|  %tmm, %blk = transform.structured.tile_using_forall {GEMM} tile_sizes [%block_m, %block_n] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
NF|  %bfill, %blk2 = transform.structured.fuse_into_containing_op %init into %blk : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
E|  %tepi, %blk = transform.structured.tile_using_forall %epi tile_sizes [%block_m, %block_n] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
E|  %tmm, %blk1 = transform.structured.fuse_into_containing_op %root into %blk : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
E|  %bfill, %blk2 = transform.structured.fuse_into_containing_op %init into %blk1 : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
{SOFTMAX_TILING}
{EDGES}
  // 2. The K loop.
  %kmm, %kloop = transform.structured.tile_using_for %tmm tile_sizes [0, 0, %block_k] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
  // 3. A and B K-tiles become explicit copies, split over all threads.
  %padded, %pad, %copy_back = transform.structured.pad %kmm {padding_values = [0.0 : {TA}, 0.0 : {TB}, 0.0 : {TACC}], padding_dimensions = [0, 1, 2], nofold_flags = [1, 1, 0], copy_back_op = "none"} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
  %pad_forall, %pad_tiles = transform.structured.gpu.map_copy_to_threads %pad total_num_threads = {NT} desired_bit_alignment = {COPYBITS} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.foreach %pad_forall : !transform.any_op {
  ^bb0(%copy: !transform.any_op):
    %if = transform.structured.match ops{["scf.if"]} in %copy : (!transform.any_op) -> !transform.any_op
    transform.scf.take_assumed_branch %if take_else_branch : (!transform.any_op) -> ()
  }
  // 4. Register tiles per thread.
  %thmm, %thr = transform.structured.tile_using_forall %padded tile_sizes [%thread_m, %thread_n] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
F|  %thfill, %thr2 = transform.structured.tile_using_forall %bfill tile_sizes [%thread_m, %thread_n] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
E|  %thepi, %thr3 = transform.structured.tile_using_forall %tepi tile_sizes [%thread_m, %thread_n] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
  transform.apply_patterns to %func {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.linalg.tiling_canonicalization
  } {apply_cse} : !transform.any_op
  // Vector sizes of the copies are each thread's share of the A and B tiles.
  %copy_a, %copy_b = transform.split_handle %pad_tiles : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.structured.vectorize %copy_a vector_sizes [{COPYA}] : !transform.any_op
  transform.structured.vectorize %copy_b vector_sizes [{COPYB}] : !transform.any_op
  transform.structured.vectorize %thmm : !transform.any_op
F|  transform.structured.vectorize %thfill : !transform.any_op
E|  transform.structured.vectorize %thepi : !transform.any_op
  // 5. The staged tiles live in shared memory (address space 3).
  %smem, %smem_ops = transform.structured.bufferize_to_allocation %pad_forall {memory_space = {SMEM_SPACE}, bufferize_destination_only, alloc_op = "memref.alloca"} : !transform.any_op
  transform.apply_patterns to %func {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.vector.lower_masked_transfers
  } {apply_cse} : !transform.any_op
  // 6. Bufferize the dispatch (its boundary is bufferized with the module).
  transform.bufferization.eliminate_empty_tensors %func : !transform.any_op
  transform.apply_dce to %func : !transform.any_op
  transform.apply_cse to %func : !transform.any_op
  %bf = transform.bufferization.one_shot_bufferize %func {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %bf {
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  %copies = transform.structured.match ops{["linalg.copy"]} in %bf : (!transform.any_op) -> !transform.any_op
  transform.structured.vectorize %copies : !transform.any_op
  %allocas = transform.structured.match ops{["memref.alloca"]} in %bf : (!transform.any_op) -> !transform.op<"memref.alloca">
  %smem_get, %smem_global = transform.memref.alloca_to_global %allocas : (!transform.op<"memref.alloca">) -> (!transform.any_op, !transform.any_op)
{EDGE_PROMOTE}
  // The return op outlives the mapping and leads back to the function.
  %ret = transform.structured.match ops{["func.return"]} in %bf : (!transform.any_op) -> !transform.any_op
  // 7. Map to blocks and threads.
GF|  %launch_parent = transform.gpu.map_forall_to_blocks %bf generate_gpu_launch : (!transform.any_op) -> !transform.any_op
GF|  %launch = transform.structured.match ops{["gpu.launch"]} in %launch_parent : (!transform.any_op) -> !transform.any_op
GF|  %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [{BDX}, {BDY}, 1] : (!transform.any_op) -> !transform.any_op
GF|  %f2 = transform.get_parent_op %mapped {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
GX|  // One kernel per block-mapped loop: fill, interior, edges (or the GEMM).
GX|  %block_loops = transform.structured.match ops{["scf.forall"]} attributes{mapping = [#gpu.block<y>, #gpu.block<x>]} in %bf : (!transform.any_op) -> !transform.any_op
GX|  transform.foreach %block_loops : !transform.any_op {
GX|  ^bb0(%block_loop: !transform.any_op):
GX|    %launch = transform.gpu.map_forall_to_blocks %block_loop generate_gpu_launch : (!transform.any_op) -> !transform.any_op
GX|    %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [{BDX}, {BDY}, 1] : (!transform.any_op) -> !transform.any_op
GX|  }
{SOFTMAX_KERNEL}
GX|  %f2 = transform.get_parent_op %ret {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
C|  // CPU check: blocks and threads run as sequential loops, which keeps the
C|  // order the barriers enforce on the GPU.
C|  %foralls = transform.structured.match ops{["scf.forall"]} in %bf : (!transform.any_op) -> !transform.any_op
C|  transform.foreach %foralls : !transform.any_op {
C|  ^bb0(%forall: !transform.any_op):
C|    %as_loops = transform.loop.forall_to_parallel %forall : (!transform.any_op) -> !transform.any_op
C|  }
C|  %f2 = transform.get_parent_op %ret {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %f2 {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.memref.fold_memref_alias_ops
  } {apply_cse} : !transform.any_op
  %loops = transform.structured.match ops{["scf.for"]} in %f2 : (!transform.any_op) -> !transform.any_op
  transform.apply_licm to %loops : !transform.any_op
  // 8. Keep the accumulator in registers across the K loop.
  %h = transform.structured.hoist_redundant_vector_transfers %f2 : (!transform.any_op) -> !transform.any_op
E|  transform.memref.erase_dead_alloc_and_stores %h : (!transform.any_op) -> ()
  // 9. Contractions become outer products, then FMAs.
  transform.apply_patterns to %h {
    transform.apply_patterns.vector.reduction_to_contract
    transform.apply_patterns.vector.transfer_permutation_patterns
    transform.apply_patterns.vector.sink_ops
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  transform.apply_patterns to %h {
    transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
    transform.apply_patterns.vector.lower_outerproduct
    transform.apply_patterns.vector.lower_transpose
    transform.apply_patterns.vector.lower_broadcast
    transform.apply_patterns.vector.lower_shape_cast
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  transform.yield
}
)mlir";

/// Replaces every `{KEY}` in `text` and keeps or drops `E|`/`N|` lines.
std::string instantiate(StringRef text,
                        ArrayRef<std::pair<StringRef, std::string>> values,
                        bool hasEpilogue, bool cpuCheck, bool split,
                        bool softmax) {
  // A softmax kernel besides the GEMM's: each block loop is mapped apart.
  bool perLoop = split || softmax;
  std::string out;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    // Tags, in this order: E (epilogue) / N (none), then F (fill fused) / X
    // (split), G (GPU mapping) / C (CPU check); GF and GX combine two, GX
    // standing for any per-loop mapping.
    if (line.consume_front("E|") && !hasEpilogue)
      continue;
    if (line.consume_front("NF|") && (hasEpilogue || split))
      continue;
    if (line.consume_front("N|") && hasEpilogue)
      continue;
    if (line.consume_front("F|") && split)
      continue;
    if (line.consume_front("X|") && !split)
      continue;
    if (line.consume_front("GF|") && (cpuCheck || perLoop))
      continue;
    if (line.consume_front("GX|") && (cpuCheck || !perLoop))
      continue;
    if (line.consume_front("G|") && cpuCheck)
      continue;
    if (line.consume_front("C|") && !cpuCheck)
      continue;
    std::string l = line.str();
    for (const auto &[key, value] : values) {
      std::string pattern = ("{" + key + "}").str();
      for (size_t pos = l.find(pattern); pos != std::string::npos;
           pos = l.find(pattern, pos + value.size()))
        l.replace(pos, pattern.size(), value);
    }
    if (!l.empty() || !line.empty())
      out += l + "\n";
  }
  return out;
}

/// The split section: cuts the GEMM at the largest multiples of the block
/// tile, leaving the interior handle in `%interior`.
std::string writeSplit(const SimtTiling &t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const char *split = "  %{0} = transform.structured.split %{1} after {2} "
                      "{{dimension = {3}} : !transform.any_op\n"
                      "  %{4}, %{5} = transform.split_handle %{0} : "
                      "(!transform.any_op) -> (!transform.any_op, "
                      "!transform.any_op)\n";
  std::string current = "root";
  if (t.splitM) {
    os << llvm::formatv(split, "parts_m", current, t.splitM, 0, "interior_m",
                        "edge_m");
    current = "interior_m";
  }
  if (t.splitN) {
    os << llvm::formatv(split, "parts_n", current, t.splitN, 1, "interior",
                        "edge_n");
    current = "interior";
  }
  os << "  %interior_gemm = transform.merge_handles %" << current
     << " : !transform.any_op";
  return text;
}

/// Direct tiling of each ragged edge. Edges are thin strips with long K, so
/// they get small block tiles with one output per thread: many blocks, and
/// one dot product per thread instead of a dozen in sequence.
std::string writeEdges(const SimtTiling &t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (StringRef edge : {"edge_m", "edge_n"}) {
    if ((edge == "edge_m" && !t.splitM) || (edge == "edge_n" && !t.splitN))
      continue;
    os << llvm::formatv(
        "  %{0}_b, %{0}_blk = transform.structured.tile_using_forall %{0} "
        "tile_sizes [{1}, {2}] (mapping = [#gpu.block<y>, "
        "#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, "
        "!transform.any_op)\n"
        "  %{0}_t, %{0}_thr = transform.structured.tile_using_forall %{0}_b "
        "num_threads [{1}, {2}] (mapping = [#gpu.thread<y>, "
        "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
        "!transform.any_op)\n",
        edge, t.blockM / t.threadM, t.blockN / t.threadN);
  }
  return text;
}

} // namespace

FailureOr<std::string> vibegemm::writeSimtSchedule(func::FuncOp dispatch,
                                                   const GemmProblem &problem,
                                                   const SimtTiling &t,
                                                   StringRef sequenceName,
                                                   bool cpuCheck) {
  if (t.blockM % t.threadM || t.blockN % t.threadN)
    return emitError(dispatch.getLoc(),
                     "block tile must be a multiple of the thread "
                     "tile");
  DispatchOps ops = collectRoles(dispatch);
  auto comment = llvm::formatv("{0}: {1}x{2}x{3} (batch {4}), {5}",
                               sequenceName, problem.m, problem.n, problem.k,
                               problem.batch, problem.dtypeString())
                     .str();
  if (t.reference) {
    GemmProblem unfused = problem;
    unfused.fuseEpilogues = false;
    return writeDirectSchedule(unfused, t, ops, sequenceName, comment,
                               cpuCheck);
  }
  if (t.tensorCore && !cpuCheck)
    return writeTensorCoreSchedule(problem, *t.tensorCore, ops, sequenceName,
                                   comment);
  if (t.staged) {
    bool split = t.splitM || t.splitN;
    // A softmax consumer: a kernel of its own, one row per block
    // (decomposed for the CPU check).
    std::string softmaxTiling, softmaxKernel;
    if (ops.hasSoftmax) {
      llvm::raw_string_ostream tiling(softmaxTiling), kernel(softmaxKernel);
      tiling << "  %softmax = transform.structured.match attributes"
                "{vibegemm.role = \"softmax\"} in %func : (!transform.any_op) "
                "-> !transform.any_op\n";
      writeSoftmaxRowTiling(tiling, problem);
      if (cpuCheck)
        tiling << "  %softmax_parts = transform.structured.decompose_interface "
                  "%softmax_b : (!transform.any_op) -> !transform.any_op\n";
      else
        writeSoftmaxRowKernel(kernel, problem, "bf");
    }
    auto str = [](int64_t v) { return std::to_string(v); };
    return instantiate(
        kStagedTemplate,
        {{"NAME", sequenceName.str()},
         {"COMMENT", comment},
         {"BM", str(t.blockM)},
         {"BN", str(t.blockN)},
         {"BK", str(t.blockK)},
         {"TM", str(t.threadM)},
         {"TN", str(t.threadN)},
         {"NT", str(t.threadsPerBlock())},
         {"BDX", str(t.blockN / t.threadN)},
         {"BDY", str(t.blockM / t.threadM)},
         {"COPYBITS", str(t.copyBits)},
         {"COPYA", str(t.copyA[0]) + ", " + str(t.copyA[1])},
         {"COPYB", str(t.copyB[0]) + ", " + str(t.copyB[1])},
         {"TA", typeName(problem.lhsType)},
         {"TB", typeName(problem.rhsType)},
         {"TACC", typeName(problem.accType)},
         {"SMEM_SPACE", cpuCheck ? "0" : "3"},
         {"SOFTMAX_TILING", StringRef(softmaxTiling).rtrim('\n').str()},
         {"SOFTMAX_KERNEL", StringRef(softmaxKernel).rtrim('\n').str()},
         {"GEMM", split ? "%interior_gemm" : "%root"},
         {"SPLIT", split ? writeSplit(t) : ""},
         {"EDGES", split ? writeEdges(t) : ""},
         // Edge threads accumulate in a private copy of their C tile; the
         // interior's GEMMs were vectorized away, so only edges match.
         {"EDGE_PROMOTE",
          split ? "  %edge_gemms = transform.structured.match attributes"
                  "{vibegemm.role = \"root\"} in %bf : (!transform.any_op) "
                  "-> !transform.any_op\n"
                  "  %edge_promoted = transform.structured.promote "
                  "%edge_gemms {operands_to_promote = [2], use_alloca, "
                  "use_full_tiles_by_default} : (!transform.any_op) -> "
                  "!transform.any_op"
                : ""}},
        !ops.epilogues.empty(), cpuCheck, split, ops.hasSoftmax);
  }
  // Thread tiles shrink at ragged block edges, which would give a fused
  // epilogue's private accumulator a dynamic size: such epilogues run as
  // kernels of their own instead.
  GemmProblem direct = problem;
  if (problem.m % t.blockM || problem.n % t.blockN)
    direct.fuseEpilogues = false;
  return writeDirectSchedule(direct, t, ops, sequenceName, comment, cpuCheck);
}

namespace {

/// The tensor-core schedule: block tiles with the fill, GEMM and fused
/// epilogue chain in one loop, bufferized, mapped to blocks, then the GEMM
/// and its epilogue rewritten into an mma.sync kernel body. Unfused
/// epilogues get SIMT kernels of their own.
/// `, f32_precision = "..."` where `t` runs f32 operands on tensor cores.
std::string f32PrecisionAttr(const TensorCoreTiling &t) {
  return t.f32Precision.empty()
             ? std::string()
             : ", f32_precision = \"" + t.f32Precision + "\"";
}

/// The kernel rewrite of a block-tiled GEMM (`%gemm_mapped`) on the
/// mma.sync or FFMA path, whose K loop becomes `%k_loop`.
void writeBlockGemmRewrite(llvm::raw_ostream &os, const TensorCoreTiling &t) {
  auto groupBlocks = [&]() {
    if (t.groupRows > 1)
      os << llvm::formatv("  transform.vibegemm.group_blocks %gemm_launch "
                          "{{group = {0}} : !transform.any_op\n",
                          t.groupRows);
  };
  // Clusters pair blocks by their y id, before grouping renumbers them; a
  // persistent kernel in clusters orders its tiles itself (group_rows).
  bool ownOrder = t.clusterRows > 1 && t.persistentBlocks;
  if (t.clusterRows == 1)
    groupBlocks();
  const char *anyOp = "(!transform.any_op) -> !transform.any_op";
  if (!t.alignOperands.empty()) {
    os << "  transform.vibegemm.align_operand_rows %gemm_mapped ";
    llvm::SmallVector<std::string, 2> attrs;
    if (t.alignOperands.size() == 1)
      attrs.push_back(llvm::formatv("operands = array<i64: {0}>",
                                    t.alignOperands[0]));
    if (t.alignRowBytes != 16)
      attrs.push_back(
          llvm::formatv("row_bytes = {0} : i64", t.alignRowBytes));
    if (!attrs.empty())
      os << "{" << llvm::join(attrs, ", ") << "} ";
    os << ": !transform.any_op\n";
  }
  if (t.wgmma)
    os << llvm::formatv(
              "  %k_loop = transform.vibegemm.gemm_to_wgmma %gemm_mapped "
              "{{stages = {0}, consumers = {1}{2}{3}} : {4}\n",
              t.stages, t.consumers, f32PrecisionAttr(t),
              (t.persistentBlocks
                   ? llvm::formatv(", persistent_blocks = {0}",
                                   t.persistentBlocks)
                         .str()
                   : std::string()) +
                  (t.clusterRows > 1
                       ? llvm::formatv(", cluster_rows = {0}", t.clusterRows)
                             .str()
                       : std::string()) +
                  (ownOrder && t.groupRows > 1
                       ? llvm::formatv(", group_rows = {0}", t.groupRows)
                             .str()
                       : std::string()) +
                  (t.tmaStore ? ", tma_store" : "") +
                  (t.tmaLoadResidual ? ", tma_load_residual" : ""),
              anyOp);
  else if (t.ffma)
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_ffma %gemm_mapped "
        "{{block_k = {0}, thread_tile = array<i64: {1}, {2}>, stages = {3}} : "
        "{4}\n",
        t.blockK, t.threadM, t.threadN, t.stages, anyOp);
  else
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_mma_sync %gemm_mapped "
        "{{block_k = {0}, warps = array<i64: {1}, {2}>, stages = {3}{4}} : "
        "{5}\n",
        t.blockK, t.warpsM, t.warpsN, t.stages, f32PrecisionAttr(t), anyOp);
  if (t.clusterRows > 1 && !ownOrder)
    groupBlocks();
}

std::string writeTensorCoreSchedule(const GemmProblem &problem,
                                    const TensorCoreTiling &t,
                                    const DispatchOps &ops,
                                    StringRef sequenceName, StringRef comment) {
  bool batched = problem.batched;
  std::string text;
  llvm::raw_string_ostream os(text);
  const char *anyOp = "(!transform.any_op) -> !transform.any_op";
  auto knob = [&](StringRef name, int64_t value, StringRef options) {
    os << llvm::formatv("  %{0} = transform.tune.knob<\"{0}\"> = {1} : i64 "
                        "from options = [{2}] -> !transform.param<i64>\n",
                        name, value, options);
  };
  os << "transform.named_sequence @" << sequenceName
     << "(%func: !transform.any_op {transform.consumed}) {\n";
  os << "  // " << comment << "\n";
  if (t.blockReduce)
    os << llvm::formatv(
        "  // Matrix-vector schedule: {1} output(s) per block, {0} threads "
        "splitting K,\n  // warp shuffles and shared memory reducing.\n",
        t.threads, t.blockM * t.blockN);
  else if (t.wgmma)
    os << llvm::formatv(
        "  // Hopper schedule: {0}x{1} block tiles, a TMA producer warpgroup "
        "and {2} wgmma\n  // consumer warpgroup(s), K steps of {5} through a "
        "{3}-stage mbarrier ring{4}{6}{7}.\n",
        t.blockM, t.blockN, t.consumers, t.stages,
        t.alignOperands.empty() ? ""
                                : ",\n  // operands with misaligned rows "
                                  "copied into padded buffers first",
        t.f32Precision.empty() ? std::string("64")
                               : "32 (f32 operands as " + t.f32Precision +
                                     ", which the user allowed)",
        t.persistentBlocks
            ? llvm::formatv(",\n  // persistent: {0} blocks loop over the "
                            "tiles",
                            t.persistentBlocks)
                  .str()
            : std::string(),
        t.clusterRows > 1
            ? llvm::formatv(",\n  // clusters of {0} blocks along M "
                            "multicast their parts of B",
                            t.clusterRows)
                  .str()
            : std::string());
  else if (t.ffma)
    os << llvm::formatv(
        "  // CUDA-core f32 schedule (no TF32): {0}x{1} block tiles, {2}x{3} "
        "FFMA outputs per\n  // thread, K steps of {4} through a {5}-stage "
        "cp.async ring, epilogue on registers.\n",
        t.blockM, t.blockN, t.threadM, t.threadN, t.blockK, t.stages);
  else
    os << llvm::formatv(
        "  // Tensor-core schedule: {0}x{1} block tiles, {2}x{3} warps of "
        "{6} mma.sync,\n  // K steps of {4} through a {5}-stage "
        "cp.async ring, epilogue on registers.\n",
        t.blockM, t.blockN, t.warpsM, t.warpsN, t.blockK, t.stages,
        t.f32Precision.empty()
            ? std::string("m16n8k16")
            : "m16n8k8 " + t.f32Precision + " (f32 operands; the user "
                                            "allowed " + t.f32Precision + ")");
  StringRef tileOptions = t.blockReduce ? "1, 2" : "16, 32, 64, 128, 256";
  knob("block_m", t.blockM, tileOptions);
  knob("block_n", t.blockN, tileOptions);
  writeRoleMatches(os, ops, /*softmax=*/true);
  FusionPlan plan = planFusion(problem, ops);
  bool fused = plan.fused;
  const std::string &anchor = plan.anchor, &lead = plan.lead,
                    &blockMap = plan.blockMap;
  SmallVector<std::string> &producers = plan.producers;
  auto tileToBlocks = [&](StringRef op, StringRef tiled, StringRef loop) {
    os << llvm::formatv(
        "  %{0}, %{1} = transform.structured.tile_using_forall %{2} "
        "tile_sizes [{3}%block_m, %block_n] (mapping = [{4}]) : "
        "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> "
        "(!transform.any_op, !transform.any_op)\n",
        tiled, loop, op, lead, blockMap);
  };
  if (t.splitK > 1) {
    // Split-K: the partial GEMM is a batch-like op over [split, M, N]
    // (tensor cores), the combining sum and the epilogue chain a SIMT
    // kernel with one output per thread: 16x16 threads over 16x16 tiles.
    // The sum is latency-bound, so it wants many blocks with coalesced
    // loads, and LLVM unrolls a one-output loop 8 deep (8 partials in
    // flight; unrolling it whole gained nothing on the H200, A/B in one
    // run: a_huge_k 20.0 / 19.9 us); 4x4 outputs per thread over 64x64
    // tiles ran 4 blocks for a 128x128 output.
    os << llvm::formatv(
        "  %split_init, %split_fill, %split_gemm, %split_combine = "
        "transform.structured.split_reduction %root {{split_factor = {0}, "
        "insert_split_dimension = 0} : (!transform.any_op) -> "
        "(!transform.any_op, !transform.any_op, !transform.any_op, "
        "!transform.any_op)\n"
        "  transform.annotate %split_gemm \"vibegemm.split_k\" : "
        "!transform.any_op\n"
        "  %sg_tiled, %sg_forall = transform.structured.tile_using_forall "
        "%split_gemm tile_sizes [1, %block_m, %block_n] (mapping = "
        "[#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, "
        "!transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, "
        "!transform.any_op)\n"
        "  %sf_fused, %sg_loop = transform.structured.fuse_into_containing_op "
        "%split_fill into %sg_forall : (!transform.any_op, !transform.any_op) "
        "-> (!transform.any_op, !transform.any_op)\n",
        t.splitK);
    // Producers of the combine kernel: epilogues (last first), the
    // combining sum, the output's fill.
    SmallVector<std::string> chainOps;
    std::string chainAnchor = fused ? anchor : "split_combine";
    for (const std::string &p : producers)
      chainOps.push_back(p == "root" ? "split_combine" : p);
    if (!fused && ops.hasInit)
      chainOps.assign({"init"});
    std::string sizes = llvm::formatv(
        chainAnchor == "split_combine" ? "0, {0}, {0}" : "{0}, {0}",
        kCombineTile);
    std::string threadsSpec =
        chainAnchor == "split_combine" ? "0, 16, 16" : "16, 16";
    const char *twoResults =
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)";
    os << llvm::formatv(
        "  %c_tiled, %c_forall = transform.structured.tile_using_forall %{0} "
        "tile_sizes [{1}] (mapping = [#gpu.block<y>, #gpu.block<x>]) : {2}\n",
        chainAnchor, sizes, twoResults);
    writeFusions(os, chainOps, "", "_c", "c_forall", "c_loop");
    os << llvm::formatv(
        "  %t_tiled, %t_forall = transform.structured.tile_using_forall "
        "%c_tiled num_threads [{0}] (mapping = [#gpu.thread<y>, "
        "#gpu.thread<x>]) : {1}\n",
        threadsSpec, twoResults);
    writeFusions(os, chainOps, "_c", "_t", "t_forall", "t_loop");
    os << "  transform.apply_patterns to %func {\n"
          "    transform.apply_patterns.canonicalization\n"
          "  } : !transform.any_op\n"
          "  transform.bufferization.eliminate_empty_tensors %func : "
          "!transform.any_op\n"
          "  %buffers = transform.bufferization.one_shot_bufferize %func "
          "{memcpy_op = \"linalg.copy\"} : "
       << anyOp << "\n"
       << "  transform.apply_patterns to %buffers {\n"
          "    transform.apply_patterns.canonicalization\n"
          "  } {apply_cse} : !transform.any_op\n"
          "  %gemm = transform.structured.match attributes{vibegemm.split_k} "
          "in %buffers : "
       << anyOp << "\n"
       << "  %gemm_blocks = transform.get_parent_op %gemm {op_name = "
          "\"scf.forall\"} : "
       << anyOp << "\n"
       << "  %gemm_launch = transform.gpu.map_forall_to_blocks %gemm_blocks "
          "generate_gpu_launch : "
       << anyOp << "\n"
       << "  %gemm_mapped = transform.structured.match attributes"
          "{vibegemm.split_k} in %gemm_launch : "
       << anyOp << "\n";
    writeBlockGemmRewrite(os, t);
    os << llvm::formatv(
        "  %combine_loops = transform.structured.match ops{{[\"scf.forall\"]} "
        "attributes{{mapping = [#gpu.block<y>, #gpu.block<x>]} in %buffers : "
        "{0}\n"
        "  transform.foreach %combine_loops : !transform.any_op {{\n"
        "  ^bb0(%block_loop: !transform.any_op):\n"
        "    %launch = transform.gpu.map_forall_to_blocks %block_loop "
        "generate_gpu_launch : {0}\n"
        "    %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [16, 16, 1] : {0}\n"
        "  }\n"
        "  transform.apply_patterns to %buffers {{\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } {{apply_cse} : !transform.any_op\n"
        "  transform.yield\n}\n",
        anyOp);
    return text;
  }
  tileToBlocks(anchor, "b_tiled", "b_forall");
  writeFusions(os, producers, "", "_b", "b_forall", "b_loop");
  // A softmax consumer: its own kernel, one row per block (a grid of
  // batches by rows when batched).
  if (ops.hasSoftmax)
    writeSoftmaxRowTiling(os, problem);
  // Unfused epilogues: SIMT kernels, 16x16 threads over 64x64 tiles.
  if (!fused)
    for (StringRef e : ops.epilogues)
      os << llvm::formatv(
          "  %{0}_b, %{0}_blk = transform.structured.tile_using_forall %{0} "
          "tile_sizes [{1}64, 64] (mapping = [{2}]) : {3}\n"
          "  %{0}_t, %{0}_thr = transform.structured.tile_using_forall %{0}_b "
          "num_threads [{4}16, 16] (mapping = [#gpu.thread<y>, "
          "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n",
          e, lead, blockMap,
          "(!transform.any_op) -> (!transform.any_op, !transform.any_op)",
          batched ? "0, " : "");
  os << "  transform.apply_patterns to %func {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n"
        "  transform.bufferization.eliminate_empty_tensors %func : "
        "!transform.any_op\n"
        "  %buffers = transform.bufferization.one_shot_bufferize %func "
        "{memcpy_op = \"linalg.copy\"} : "
     << anyOp << "\n";
  // Folds the self-copies bufferization leaves behind the epilogue.
  os << "  transform.apply_patterns to %buffers {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } {apply_cse} : !transform.any_op\n";
  os << "  %gemm = transform.structured.match attributes{vibegemm.role = "
        "\"root\"} in %buffers : "
     << anyOp << "\n";
  os << "  %gemm_blocks = transform.get_parent_op %gemm {op_name = "
        "\"scf.forall\"} : "
     << anyOp << "\n";
  os << "  %gemm_launch = transform.gpu.map_forall_to_blocks %gemm_blocks "
        "generate_gpu_launch : "
     << anyOp << "\n";
  os << "  %gemm_mapped = transform.structured.match attributes{vibegemm.role "
        "= \"root\"} in %gemm_launch : "
     << anyOp << "\n";
  if (t.blockReduce)
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_block_reduce %gemm_mapped "
        "{{threads = {0}} : {1}\n",
        t.threads, anyOp);
  else
    writeBlockGemmRewrite(os, t);
  if (!fused && !ops.epilogues.empty())
    os << llvm::formatv(
        "  %epilogue_loops = transform.structured.match ops{{[\"scf.forall\"]} "
        "attributes{{mapping = [{0}]} in %buffers : {1}\n"
        "  transform.foreach %epilogue_loops : !transform.any_op {{\n"
        "  ^bb0(%block_loop: !transform.any_op):\n"
        "    %launch = transform.gpu.map_forall_to_blocks %block_loop "
        "generate_gpu_launch : {1}\n"
        "    %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [16, 16, 1] : {1}\n"
        "  }\n",
        blockMap, anyOp);
  if (ops.hasSoftmax)
    writeSoftmaxRowKernel(os, problem, "buffers");
  os << "  transform.apply_patterns to %buffers {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } {apply_cse} : !transform.any_op\n";
  os << "  transform.yield\n}\n";
  return text;
}

/// The direct SIMT schedule: block tiles, a fixed thread grid whose
/// per-thread tiles shrink at ragged edges (so any shape works), operands
/// read from global memory. A softmax consumer gets its own kernel, one row
/// per thread.
std::string writeDirectSchedule(const GemmProblem &problem, const SimtTiling &t,
                                const DispatchOps &ops, StringRef sequenceName,
                                StringRef comment, bool cpuCheck) {
  bool batched = problem.batched;
  std::string text;
  llvm::raw_string_ostream os(text);
  auto knob = [&](StringRef name, int64_t value, ArrayRef<int64_t> options) {
    os << llvm::formatv(
        "  %{0} = transform.tune.knob<\"{0}\"> = {1} : i64 "
        "from options = [{2}] -> !transform.param<i64>\n",
        name, value,
        llvm::join(llvm::map_range(options,
                                   [](int64_t v) { return std::to_string(v); }),
                   ", "));
  };
  const char *anyOp = "(!transform.any_op) -> !transform.any_op";
  int64_t bdx = t.blockN / t.threadN, bdy = t.blockM / t.threadM;
  // Softmax blocks of up to 32 rows, one per thread; the count divides M,
  // since a ragged last block would give the decomposed softmax's row
  // buffers a dynamic size.
  int64_t softmaxRows = 32;
  while (problem.m % softmaxRows)
    softmaxRows /= 2;

  os << "transform.named_sequence @" << sequenceName
     << "(%func: !transform.any_op {transform.consumed}) {\n";
  os << "  // " << comment << "\n";
  os << "  // Direct SIMT schedule (" << t.fallbackReason
     << "): block tiles, a fixed thread grid, operands from global memory.\n";
  knob("block_m", t.blockM, {1, 2, 4, 8, 16, 32, 64, 128, 256});
  knob("block_n", t.blockN, {1, 2, 4, 8, 16, 32, 64, 128, 256});
  writeRoleMatches(os, ops, /*softmax=*/true);
  FusionPlan plan = planFusion(problem, ops);
  bool fused = plan.fused;
  const std::string &anchor = plan.anchor, &lead = plan.lead,
                    &blockMap = plan.blockMap;
  const SmallVector<std::string> &producers = plan.producers;

  os << llvm::formatv(
      "  %b_tiled, %b_forall = transform.structured.tile_using_forall %{0} "
      "tile_sizes [{1}%block_m, %block_n] (mapping = [{2}]) : "
      "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> "
      "(!transform.any_op, !transform.any_op)\n",
      anchor, lead, blockMap);
  writeFusions(os, producers, "", "_b", "b_forall", "b_loop");
  // A fixed thread grid: per-thread tiles shrink at ragged block edges, so
  // the forall keeps a static trip count.
  os << llvm::formatv(
      "  %t_tiled, %t_forall = transform.structured.tile_using_forall "
      "%b_tiled num_threads [{0}{1}, {2}] (mapping = [#gpu.thread<y>, "
      "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
      "!transform.any_op)\n",
      batched ? "0, " : "", bdy, bdx);
  writeFusions(os, producers, "_b", "_t", "t_forall", "t_loop");
  if (!fused)
    for (StringRef e : ops.epilogues)
      os << llvm::formatv(
          "  %{0}_b, %{0}_blk = transform.structured.tile_using_forall %{0} "
          "tile_sizes [{1}%block_m, %block_n] (mapping = [{2}]) : "
          "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) "
          "-> (!transform.any_op, !transform.any_op)\n"
          "  %{0}_t, %{0}_thr = transform.structured.tile_using_forall %{0}_b "
          "num_threads [{3}{4}, {5}] (mapping = [#gpu.thread<y>, "
          "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n",
          e, lead, blockMap, batched ? "0, " : "", bdy, bdx);
  StringRef softmaxMap = softmaxBlockMap(problem);
  // On the GPU the softmax gets the block-reduce kernel (f32 math, a block
  // per row); the reference and the CPU check decompose it, a thread per
  // row, independent of that kernel.
  bool rowKernel = ops.hasSoftmax && !cpuCheck && !t.reference;
  if (rowKernel) {
    writeSoftmaxRowTiling(os, problem);
  } else if (ops.hasSoftmax) {
    os << llvm::formatv(
        "  %s_tiled, %s_forall = transform.structured.tile_using_forall "
        "%softmax tile_sizes [{0}{1}] (mapping = [{2}]) : "
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
        batched ? "1, " : "", softmaxRows, softmaxMap);
    os << llvm::formatv(
        "  %s_thread, %s_tforall = transform.structured.tile_using_forall "
        "%s_tiled num_threads [{0}{1}] (mapping = [#gpu.thread<x>]) : "
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
        batched ? "0, " : "", softmaxRows);
    os << "  %s_parts = transform.structured.decompose_interface %s_thread : "
       << anyOp << "\n";
  }
  os << "  transform.apply_patterns to %func {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n";
  os << "  %buffers = transform.bufferization.one_shot_bufferize %func "
        "{memcpy_op = \"linalg.copy\"} : "
     << anyOp << "\n";
  // Each thread accumulates its C tile in a private buffer (registers or
  // local memory) instead of reading and writing global memory every K step.
  // Under a fused epilogue the accumulator is already a private temporary.
  // A single thread over the whole output has no C tile to promote (the
  // tiles folded away), and nothing to gain from it.
  bool wholeOutputInOneThread = !batched && bdx == 1 && bdy == 1 &&
                                problem.m <= t.blockM && problem.n <= t.blockN;
  bool promote = !fused && !wholeOutputInOneThread;
  if (promote)
    os << "  %thread_gemm = transform.structured.match attributes"
          "{vibegemm.role = \"root\"} in %buffers : "
       << anyOp << "\n";
  if (promote)
    os << "  %promoted = transform.structured.promote %thread_gemm "
          "{operands_to_promote = [2], use_alloca, use_full_tiles_by_default} "
          ": "
       << anyOp << "\n";
  if (cpuCheck) {
    os << "  %foralls = transform.structured.match ops{[\"scf.forall\"]} "
          "in %buffers : "
       << anyOp << "\n";
    os << "  transform.foreach %foralls : !transform.any_op {\n"
          "  ^bb0(%forall: !transform.any_op):\n"
          "    %as_loops = transform.loop.forall_to_parallel %forall : "
       << anyOp << "\n  }\n";
    os << "  transform.yield\n}\n";
    return text;
  }
  // One kernel per block-mapped loop (the GEMM, unfused epilogues), then
  // the softmax kernel, whose blocks are one-dimensional.
  auto mapEach = [&](StringRef mapping, StringRef blockDims) {
    os << llvm::formatv(
        "  %loops_{0} = transform.structured.match ops{{[\"scf.forall\"]} "
        "attributes{{mapping = [{1}]} in %buffers : {2}\n"
        "  transform.foreach %loops_{0} : !transform.any_op {{\n"
        "  ^bb0(%block_loop: !transform.any_op):\n"
        "    %launch = transform.gpu.map_forall_to_blocks %block_loop "
        "generate_gpu_launch : {2}\n"
        "    %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [{3}] : {2}\n"
        "  }\n",
        mapping == softmaxMap ? "rows" : "tiles", mapping, anyOp, blockDims);
  };
  mapEach(blockMap, llvm::formatv("{0}, {1}, 1", bdx, bdy).str());
  if (rowKernel)
    writeSoftmaxRowKernel(os, problem, "buffers");
  else if (ops.hasSoftmax)
    mapEach(softmaxMap,
            llvm::formatv("{0}, 1, 1", softmaxRows).str());
  os << "  transform.yield\n}\n";
  return text;
}

} // namespace

std::string vibegemm::wrapForReplay(StringRef sequenceText,
                                    StringRef sequenceName,
                                    StringRef dispatchName) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Schedule for dispatch @" << dispatchName
     << ". Replay on a module holding the dispatch function with\n"
        "//   vibegemm-opt dispatches.mlir "
        "--transform-preload-library=transform-library-paths=THIS_FILE \\\n"
        "//     --transform-interpreter --vibegemm-lower-to-ptx\n"
        "module attributes {transform.with_named_sequence} {\n";
  os << sequenceText << "\n";
  os << llvm::formatv(
      "transform.named_sequence @__transform_main(%module: !transform.any_op "
      "{{transform.readonly}) {{\n"
      "  %func = transform.structured.match ops{{[\"func.func\"]} "
      "attributes{{sym_name = \"{0}\"} in %module : (!transform.any_op) -> "
      "!transform.any_op\n"
      "  transform.include @{1} failures(propagate) (%func) : "
      "(!transform.any_op) -> ()\n"
      "  transform.yield\n}\n}\n",
      dispatchName, sequenceName);
  return text;
}
