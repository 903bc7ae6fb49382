//===- TilingVariants.cpp - Variants of a choice worth racing -------------===//
//
// Where candidates are timed on the GPU, variants of the built-in choice
// race it; these are the variants, per kernel path.
//
//===----------------------------------------------------------------------===//

#include "TilingRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tiling;

namespace {

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
  const KernelTiling &t = *chosen.kernel;
  llvm::SmallVector<TilingVariant, 4> variants;
  auto add = [&](StringRef name, std::optional<KernelTiling> v) {
    if (!v || (v->blockM == t.blockM && v->blockN == t.blockN &&
               v->threadM == t.threadM && v->threadN == t.threadN &&
               v->splitK == t.splitK))
      return;
    SimtTiling variant = chosen;
    variant.kernel = v;
    variants.push_back({name.str(), variant});
  };
  auto shaped = [&](int64_t bm, int64_t bn, int64_t tm, int64_t tn) {
    KernelTiling v = t;
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
  if (t.splitK == 1 && t.blockM == 128 && t.blockN == 128 && p.m >= 64 &&
      p.n >= 128 && blockCount(p, t) < 4 * target.smCount)
    add("tile-64x128", withFfmaKTiles(p, shaped(64, 128, 4, 8)));
  if (t.splitK == 1 && t.threadM == 4 && p.m >= t.blockM)
    add("threads-half",
        withFfmaKTiles(p, shaped(t.blockM, t.blockN, 8, t.threadN)));
  if (t.splitK == 1 && !(t.blockM == 128 && t.blockN == 128) && p.m >= 128 &&
      p.n >= 128) {
    KernelTiling wide = shaped(128, 128, 8, 8);
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

/// The mma.sync choice over a small output splits K in powers of two, down
/// to 1024 per split, so a short grid can stay short: 32x512x3584 bf16
/// took 32x64 tiles split twice, 16 blocks for 132 SMs, 22 us on an H100.
/// A stand-in LLM's split of 14 over 32x32 tiles, 224 blocks, ran 6 us
/// there (docs/benchmarks/2026-12-07-tuning-at-scale). This races the
/// choice's own tile split by the largest factor of its K-tiles that keeps
/// at least 256 of K per split and at most two blocks an SM, with the f32
/// partials (written, then read again by the combine) no larger than the
/// operands. Measured on one shape so far, so a variant, not the choice.
std::optional<KernelTiling> deeperSplit(const GemmProblem &p,
                                        const KernelTiling &base,
                                        const TargetInfo &target) {
  KernelTiling t = base;
  // A split needs whole K-tiles: where 32-row tiles' K-tiles of 64 do not
  // divide K, split K-tiles of 32 (the copies still split evenly).
  int64_t threads = 32 * t.warpsM * t.warpsN;
  if (t.blockK > 32 && p.k % t.blockK && p.k % 32 == 0 &&
      (t.blockM * 32 / 8) % threads == 0 && (t.blockN * 32 / 8) % threads == 0)
    t.blockK = 32;
  if (t.blockK <= 0 || p.k % t.blockK || !wantsSplitK(p, t, target))
    return std::nullopt;
  int64_t blocks = blockCount(p, t), kTiles = p.k / t.blockK;
  int64_t operandBytes =
      (p.m * p.k + p.k * p.n) * (p.lhsType.getIntOrFloatBitWidth() / 8);
  int64_t best = t.splitK;
  for (int64_t split = t.splitK + 1; split <= kTiles; ++split)
    if (kTiles % split == 0 && p.k / split >= 256 &&
        blocks * split <= 2 * target.smCount &&
        split * p.m * p.n * 4 <= operandBytes)
      best = split;
  if (best == t.splitK)
    return std::nullopt;
  KernelTiling deeper = t;
  deeper.splitK = best;
  return deeper;
}

} // namespace

llvm::SmallVector<TilingVariant, 4>
vibegemm::alternativeTilings(const GemmProblem &problem,
                             const SimtTiling &chosen,
                             const TargetInfo &target) {
  const std::optional<KernelTiling> &t = chosen.kernel;
  // The matvec's choice pairs rows for 16-bit inputs (one row a block
  // races it), f32's one row races the pair; either way the other of 512
  // and 1024 threads races too (1024 threads take 34 registers, ptxas,
  // bf16, so one block holds an SM; one row of 512 threads: 29.0 -> 28.6
  // us on an H100; 256 threads ran 36.4).
  if (t && t->path == KernelPath::BlockReduce) {
    auto withRows = [&](int64_t rows) {
      SimtTiling v = chosen;
      matrixRowTile(problem, *v.kernel) = rows;
      return v;
    };
    llvm::SmallVector<TilingVariant, 4> variants;
    if (t->blockM * t->blockN == 2)
      variants.push_back({"rows-1", withRows(1)});
    // A shorter K has no other thread count to race.
    if (t->threads >= 512) {
      SimtTiling other = chosen;
      bool wider = t->threads == 512;
      other.kernel->threads = wider ? 1024 : 512;
      variants.push_back({wider ? "threads-1024" : "threads-512", other});
    }
    if (t->blockM * t->blockN == 1 && matrixRows(problem) % 2 == 0)
      variants.push_back({"rows-2", withRows(2)});
    return variants;
  }
  if (t && t->path == KernelPath::Ffma)
    return ffmaVariants(problem, chosen, target);
  if (t && t->path == KernelPath::MmaSync && t->f32Precision.empty()) {
    std::optional<KernelTiling> deeper = deeperSplit(problem, *t, target);
    if (!deeper)
      return {};
    SimtTiling variant = chosen;
    variant.kernel = deeper;
    return {{"split-deep", variant}};
  }
  if (!t || t->path != KernelPath::Wgmma || t->clusterRows != 1 ||
      !t->f32Precision.empty())
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
    KernelTiling &w = *wide.kernel;
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
  perTile.kernel->persistentBlocks = 0;
  perTile.kernel->tmaStore = false;
  perTile.kernel->stages = 4;
  SimtTiling persistent = perTile;
  persistent.kernel->persistentBlocks = target.smCount;
  persistent.kernel->stages = 3;
  SimtTiling persistentTma = perTile;
  persistentTma.kernel->persistentBlocks = target.smCount;
  persistentTma.kernel->tmaStore = true;
  // A residual read by the epilogue can come in by TMA through the staging
  // tile rather than element by element; not yet measured, so it races.
  // The whole tile is staged at once, beside 3 stages.
  auto withResidualLoads = [](SimtTiling v) {
    v.kernel->tmaLoadResidual = true;
    v.kernel->stages = 3;
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
    variants.push_back({"persistent-tma-residual", withResidualLoads(chosen)});
  // Where the tile rows pair up, the choice in clusters of two blocks
  // along M that multicast B (cuBLAS's nvjet 1x2 kernel). With each slot
  // release fenced at GPU scope they ran 1.4-1.6x slower
  // (h200-2026-12-05-mbarrier-tma); with CTA scope 3 % slower on one shape
  // (h100-2026-12-05-edges).
  if (llvm::divideCeil(problem.m, t->blockM) % 2 == 0) {
    SimtTiling clustered = chosen;
    clustered.kernel->clusterRows = 2;
    variants.push_back({"persistent-cluster-tma", clustered});
  }
  return variants;
}
