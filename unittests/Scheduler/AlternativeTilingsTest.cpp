//===- AlternativeTilingsTest.cpp - Tests of the built-in variants --------===//

#include "vibegemm/Scheduler/Tiling.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

GemmProblem problem(MLIRContext &ctx, int64_t m, int64_t n, int64_t k,
                    bool bf16 = true) {
  Builder b(&ctx);
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  Type element = bf16 ? Type(b.getBF16Type()) : Type(b.getF32Type());
  p.lhsType = p.rhsType = p.resultType = element;
  p.accType = b.getF32Type();
  return p;
}

/// x * W^T with one fused elementwise consumer (nn.Linear + epilogue).
GemmProblem linearChain(MLIRContext &ctx, int64_t m, int64_t n, int64_t k) {
  GemmProblem p = problem(ctx, m, n, k);
  p.transposeB = true;
  p.epilogueOps = 1;
  return p;
}

/// f32 without TF32: the FFMA path, with one fused epilogue.
GemmProblem ffmaChain(MLIRContext &ctx, int64_t m, int64_t n, int64_t k) {
  GemmProblem p = problem(ctx, m, n, k, /*bf16=*/false);
  p.epilogueOps = 1;
  return p;
}

llvm::SmallVector<TilingVariant, 4> variantsOf(const GemmProblem &p,
                                               llvm::StringRef targetName) {
  const TargetInfo *target = lookupTarget(targetName);
  EXPECT_NE(target, nullptr);
  return alternativeTilings(p, chooseSimtTiling(p, *target), *target);
}

/// The variants' names, in racing order.
std::vector<std::string> names(llvm::ArrayRef<TilingVariant> variants) {
  std::vector<std::string> out;
  for (const TilingVariant &variant : variants)
    out.push_back(variant.name);
  return out;
}

/// sm_90a, where the built-in choices below are wgmma tilings.
const TargetInfo &hopper() {
  const TargetInfo *target = lookupTarget("sm_90a");
  EXPECT_NE(target, nullptr);
  return *target;
}

TEST(AlternativeTilings, PerTileVariantOfThePersistentTmaStoreChoice) {
  MLIRContext ctx;
  GemmProblem p = problem(ctx, 4096, 4096, 4096);
  const TargetInfo *target = &hopper();
  SimtTiling chosen = chooseSimtTiling(p, *target);
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  // The choice: one block per SM, TMA stores, four stages.
  const KernelTiling &t = *chosen.kernel;
  EXPECT_EQ(t.persistentBlocks, target->smCount);
  EXPECT_TRUE(t.tmaStore);
  EXPECT_EQ(t.stages, 4);
  EXPECT_EQ(t.clusterRows, 1);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, *target);
  ASSERT_EQ(names(variants),
            (std::vector<std::string>{"per-tile", "persistent",
                                      "persistent-cluster-tma"}));
  // One block per tile storing from registers, otherwise the choice.
  const KernelTiling &v = *variants[0].tiling.kernel;
  EXPECT_EQ(v.persistentBlocks, 0);
  EXPECT_FALSE(v.tmaStore);
  EXPECT_EQ(v.stages, t.stages);
  EXPECT_EQ(v.blockM, t.blockM);
  EXPECT_EQ(v.blockN, t.blockN);
  EXPECT_EQ(v.consumers, t.consumers);
  EXPECT_EQ(v.groupRows, t.groupRows);
  EXPECT_EQ(v.clusterRows, 1);
  // The choice storing from registers: three stages beside its staging.
  const KernelTiling &persistent = *variants[1].tiling.kernel;
  EXPECT_EQ(persistent.persistentBlocks, target->smCount);
  EXPECT_FALSE(persistent.tmaStore);
  EXPECT_EQ(persistent.stages, 3);
  // 32 tile rows pair up: the choice in clusters of two along M.
  const KernelTiling &clustered = *variants[2].tiling.kernel;
  EXPECT_EQ(clustered.clusterRows, 2);
  EXPECT_EQ(clustered.persistentBlocks, target->smCount);
  EXPECT_TRUE(clustered.tmaStore);
  EXPECT_EQ(clustered.stages, t.stages);
  EXPECT_EQ(clustered.groupRows, t.groupRows);
  // 33 tile rows (4224) do not pair up: no clusters.
  EXPECT_EQ(names(variantsOf(problem(ctx, 4224, 4096, 4096), "sm_90a")),
            (std::vector<std::string>{"per-tile", "persistent"}));
}

TEST(AlternativeTilings, PerTileChoiceUnderATranscendentalEpilogue) {
  MLIRContext ctx;
  // nn.Linear + erf GELU (KernelBench 53): one block per tile won the
  // race there; the persistent kernels race it.
  GemmProblem p = linearChain(ctx, 1024, 8192, 8192);
  p.transcendentalOps = 1;
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  EXPECT_EQ(chosen.kernel->persistentBlocks, 0);
  EXPECT_FALSE(chosen.kernel->tmaStore);
  EXPECT_EQ(chosen.kernel->stages, 4);
  EXPECT_EQ(names(alternativeTilings(p, chosen, hopper())),
            (std::vector<std::string>{"persistent", "persistent-tma"}));
  // The same chain without the transcendental (bias + ReLU) stays
  // persistent.
  p.transcendentalOps = 0;
  EXPECT_EQ(chooseSimtTiling(p, hopper()).kernel->persistentBlocks,
            hopper().smCount);
}

TEST(AlternativeTilings, PairedRowsForTheMatvec) {
  MLIRContext ctx;
  // KernelBench's matvec: b a [K, 1] matrix. bf16: two rows of A a block,
  // sharing the vector's loads; one row a block races it.
  GemmProblem p = problem(ctx, 256, 1, 131072);
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::BlockReduce);
  EXPECT_EQ(chosen.kernel->blockM, 2);
  EXPECT_EQ(chosen.kernel->blockN, 1);
  // 128 blocks: no cap on the threads; 512 races them.
  EXPECT_EQ(chosen.kernel->threads, 1024);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  ASSERT_EQ(names(variants),
            (std::vector<std::string>{"rows-1", "threads-512"}));
  EXPECT_EQ(variants[0].tiling.kernel->blockM, 1);
  EXPECT_EQ(variants[0].tiling.kernel->threads, 1024);
  EXPECT_EQ(variants[1].tiling.kernel->blockM, 2);
  EXPECT_EQ(variants[1].tiling.kernel->threads, 512);
  // f32 (at its memory floor with one row a block of 1024 threads): 512
  // threads and the pair race the choice.
  GemmProblem f32 = problem(ctx, 256, 1, 131072, /*bf16=*/false);
  SimtTiling single = chooseSimtTiling(f32, hopper());
  ASSERT_TRUE(single.kernel && single.kernel->path == KernelPath::BlockReduce);
  EXPECT_EQ(single.kernel->blockM, 1);
  variants = alternativeTilings(f32, single, hopper());
  ASSERT_EQ(names(variants),
            (std::vector<std::string>{"threads-512", "rows-2"}));
  EXPECT_EQ(variants[0].tiling.kernel->threads, 512);
  EXPECT_EQ(variants[1].tiling.kernel->blockM, 2);
  // With the matrix as B ([N, K], M = 1) the pair runs along N; an odd
  // count of rows is not paired, and a short K's 128 threads leave
  // nothing to race.
  GemmProblem row = problem(ctx, 1, 256, 4096);
  row.transposeB = true;
  SimtTiling paired = chooseSimtTiling(row, hopper());
  ASSERT_TRUE(paired.kernel && paired.kernel->path == KernelPath::BlockReduce);
  EXPECT_EQ(paired.kernel->blockN, 2);
  EXPECT_EQ(paired.kernel->blockM, 1);
  EXPECT_EQ(paired.kernel->threads, 128);
  row.n = 255;
  SimtTiling odd = chooseSimtTiling(row, hopper());
  ASSERT_TRUE(odd.kernel && odd.kernel->path == KernelPath::BlockReduce);
  EXPECT_EQ(odd.kernel->blockN, 1);
  EXPECT_TRUE(alternativeTilings(row, odd, hopper()).empty());
  // A long K over 16-bit rows in 1792 blocks (decode's down projection,
  // 1x3584x18944): capped at 512 threads, and 1024 races it.
  GemmProblem down = problem(ctx, 1, 3584, 18944);
  down.transposeB = true;
  SimtTiling capped = chooseSimtTiling(down, hopper());
  ASSERT_TRUE(capped.kernel && capped.kernel->path == KernelPath::BlockReduce);
  EXPECT_EQ(capped.kernel->blockN, 2);
  EXPECT_EQ(capped.kernel->threads, 512);
  variants = alternativeTilings(down, capped, hopper());
  ASSERT_EQ(names(variants),
            (std::vector<std::string>{"rows-1", "threads-1024"}));
  EXPECT_EQ(variants[1].tiling.kernel->threads, 1024);
  EXPECT_EQ(variants[1].tiling.kernel->blockN, 2);
}

TEST(AlternativeTilings, WiderSplitTileForHugeK) {
  MLIRContext ctx;
  GemmProblem p = problem(ctx, 128, 128, 65536);
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  ASSERT_EQ(chosen.kernel->blockM, 64);
  ASSERT_GT(chosen.kernel->splitK, 1);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_EQ(variants[0].name, "split-wide");
  const KernelTiling &w = *variants[0].tiling.kernel;
  EXPECT_EQ(w.blockM, 128);
  EXPECT_EQ(w.blockN, 128);
  // The same number of blocks: one tile row fewer, twice the splits.
  EXPECT_EQ(w.splitK, 2 * chosen.kernel->splitK);
  EXPECT_TRUE(alternativeTilings(p, variants[0].tiling, hopper()).empty());
}

TEST(AlternativeTilings, PersistentVariantWhereTmaCannotStoreTheRows) {
  MLIRContext ctx;
  // The irregular shape: bf16 rows of 2949 (5898 bytes) are no multiple of
  // 16 bytes and K = 5921 pads the operands' rows, so the choice keeps one
  // block per tile and its staged epilogue (measured faster there); the
  // persistent kernel (three stages beside its staging) races it.
  GemmProblem p = problem(ctx, 8205, 2949, 5921);
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  EXPECT_EQ(chosen.kernel->persistentBlocks, 0);
  EXPECT_FALSE(chosen.kernel->tmaStore);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  ASSERT_EQ(names(variants), (std::vector<std::string>{"persistent"}));
  const KernelTiling &v = *variants[0].tiling.kernel;
  EXPECT_EQ(v.persistentBlocks, hopper().smCount);
  EXPECT_EQ(v.stages, 3);
  EXPECT_FALSE(v.tmaStore);
  // Output rows of 3950 (7900 bytes) with aligned operands: the persistent
  // kernel without TMA stores is the choice, and one block per tile races.
  GemmProblem oddRows = problem(ctx, 4000, 3950, 1000);
  oddRows.transposeB = true;
  SimtTiling oddChoice = chooseSimtTiling(oddRows, hopper());
  ASSERT_TRUE(oddChoice.kernel && oddChoice.kernel->path == KernelPath::Wgmma);
  EXPECT_EQ(oddChoice.kernel->persistentBlocks, hopper().smCount);
  EXPECT_FALSE(oddChoice.kernel->tmaStore);
  EXPECT_EQ(oddChoice.kernel->stages, 3);
  llvm::SmallVector<TilingVariant, 4> oddVariants =
      alternativeTilings(oddRows, oddChoice, hopper());
  ASSERT_EQ(names(oddVariants), (std::vector<std::string>{"per-tile"}));
  EXPECT_EQ(oddVariants[0].tiling.kernel->persistentBlocks, 0);
  EXPECT_EQ(oddVariants[0].tiling.kernel->stages, 4);
}

TEST(AlternativeTilings, TmaStoreChosenForBatchedOutputs) {
  MLIRContext ctx;
  // 128 batches of 512x2048: 3-D tensor maps, a batch box of 1.
  GemmProblem batched = problem(ctx, 512, 2048, 1024);
  batched.batch = 128;
  batched.batched = true;
  SimtTiling chosen = chooseSimtTiling(batched, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  EXPECT_TRUE(chosen.kernel->tmaStore);
  EXPECT_EQ(chosen.kernel->persistentBlocks, hopper().smCount);
  EXPECT_EQ(names(alternativeTilings(batched, chosen, hopper())),
            (std::vector<std::string>{"per-tile", "persistent",
                                      "persistent-cluster-tma"}));
}

TEST(AlternativeTilings, PersistentTmaChoiceOnRaggedTilesAndTransposedA) {
  MLIRContext ctx;
  // 2000 rows: the last 128-row tile is ragged and TMA clips its boxes at
  // the output's edge (run clean under memcheck, h100-2026-12-05-edges).
  GemmProblem ragged = problem(ctx, 2000, 4096, 4096);
  SimtTiling chosen = chooseSimtTiling(ragged, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  EXPECT_TRUE(chosen.kernel->tmaStore);
  EXPECT_EQ(chosen.kernel->persistentBlocks, hopper().smCount);
  EXPECT_EQ(names(alternativeTilings(ragged, chosen, hopper())),
            (std::vector<std::string>{"per-tile", "persistent",
                                      "persistent-cluster-tma"}));
  // A stored [K, M] likewise.
  GemmProblem transposedA = problem(ctx, 4096, 4096, 4096);
  transposedA.transposeA = true;
  SimtTiling transposedChoice = chooseSimtTiling(transposedA, hopper());
  ASSERT_TRUE(transposedChoice.kernel &&
              transposedChoice.kernel->path == KernelPath::Wgmma);
  EXPECT_TRUE(transposedChoice.kernel->tmaStore);
  EXPECT_EQ(transposedChoice.kernel->persistentBlocks, hopper().smCount);
}

TEST(AlternativeTilings, PersistentKernelsRaceF32Outputs) {
  MLIRContext ctx;
  // f32 outputs of bf16 operands have not run in the persistent kernel on
  // a GPU: one block per tile stays the choice and both persistent kernels
  // race it.
  GemmProblem f32Output = problem(ctx, 4096, 4096, 4096);
  f32Output.resultType = f32Output.accType;
  SimtTiling chosen = chooseSimtTiling(f32Output, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Wgmma);
  EXPECT_FALSE(chosen.kernel->tmaStore);
  EXPECT_EQ(chosen.kernel->persistentBlocks, 0);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(f32Output, chosen, hopper());
  ASSERT_EQ(names(variants),
            (std::vector<std::string>{"persistent", "persistent-tma"}));
  EXPECT_FALSE(variants[0].tiling.kernel->tmaStore);
  EXPECT_EQ(variants[0].tiling.kernel->stages, 3);
  const KernelTiling &tma = *variants[1].tiling.kernel;
  EXPECT_TRUE(tma.tmaStore);
  EXPECT_EQ(tma.persistentBlocks, hopper().smCount);
  EXPECT_EQ(tma.stages, 4);
}

TEST(AlternativeTilings, ResidualLoadsByTmaRaceTheChoice) {
  MLIRContext ctx;
  // KernelBench 40's shape with its residual as an input: the choice (the
  // persistent TMA-store kernel) races itself loading the residual by TMA.
  GemmProblem p = linearChain(ctx, 16384, 4096, 4096);
  p.residualInputs = 1;
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->tmaStore);
  EXPECT_FALSE(chosen.kernel->tmaLoadResidual);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  ASSERT_EQ(names(variants),
            (std::vector<std::string>{"per-tile", "persistent",
                                      "persistent-tma-residual",
                                      "persistent-cluster-tma"}));
  const KernelTiling &residual = *variants[2].tiling.kernel;
  EXPECT_TRUE(residual.tmaLoadResidual);
  EXPECT_TRUE(residual.tmaStore);
  EXPECT_EQ(residual.persistentBlocks, chosen.kernel->persistentBlocks);
  // The whole 128x256 tile staged at once leaves room for 3 stages.
  EXPECT_EQ(residual.stages, 3);
  // Where one block per tile is the choice (f32 outputs), the persistent
  // TMA-store variant races with and without the residual loads.
  GemmProblem f32Output = p;
  f32Output.resultType = f32Output.accType;
  EXPECT_EQ(names(variantsOf(f32Output, "sm_90a")),
            (std::vector<std::string>{"persistent", "persistent-tma",
                                      "persistent-tma-residual"}));
  // Two residuals do not fit the one staging tile: no such variant.
  p.residualInputs = 2;
  EXPECT_EQ(names(variantsOf(p, "sm_90a")),
            (std::vector<std::string>{"per-tile", "persistent",
                                      "persistent-cluster-tma"}));
}

TEST(AlternativeTilings, NoneWhereTheChoiceIsNotTheWideWgmmaTile) {
  MLIRContext ctx;
  // mma.sync on sm_90 (no wgmma without the "a" features).
  EXPECT_TRUE(variantsOf(problem(ctx, 4096, 4096, 4096), "sm_90").empty());
  // Fewer 128x256 tiles than SMs: 128x128 with one consumer.
  EXPECT_TRUE(variantsOf(problem(ctx, 1024, 1024, 1024), "sm_90a").empty());
  // Decode: the 64x128 wgmma tile.
  GemmProblem decode = problem(ctx, 16, 11008, 4096);
  decode.transposeB = true;
  EXPECT_TRUE(variantsOf(decode, "sm_90a").empty());
  // f32 without TF32: the FFMA kernel's 128x128 tile, 1024 of them.
  EXPECT_TRUE(
      variantsOf(problem(ctx, 4096, 4096, 4096, /*bf16=*/false), "sm_90a")
          .empty());
  // TF32 on the wgmma tile: no variant (a persistent TF32 kernel is untested).
  GemmProblem tf32 = problem(ctx, 4096, 4096, 4096, /*bf16=*/false);
  tf32.transposeB = true;
  tf32.f32Precision = "tf32";
  EXPECT_TRUE(variantsOf(tf32, "sm_90a").empty());
}

} // namespace

TEST(AlternativeTilings, FfmaRacesASmallerTileAgainstAPartialSecondWave) {
  // GPT-2's first MLP GEMM: 192 tiles of 128x128 for 132 SMs.
  MLIRContext ctx;
  GemmProblem p = ffmaChain(ctx, 1024, 3072, 768);
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Ffma);
  EXPECT_EQ(chosen.kernel->blockM, 128);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  EXPECT_EQ(names(variants), std::vector<std::string>{"tile-64x128"});
  const KernelTiling &smaller = *variants[0].tiling.kernel;
  EXPECT_EQ(smaller.blockM, 64);
  EXPECT_EQ(smaller.blockN, 128);
  EXPECT_EQ(smaller.threadM, 4);
  EXPECT_EQ(smaller.threadN, 8);
}

TEST(AlternativeTilings, FfmaRacesFewerThreadsAndSplitKOnAShortGrid) {
  // GPT-2's second MLP GEMM: K = 3072 over a 1024x768 output.
  MLIRContext ctx;
  GemmProblem p = ffmaChain(ctx, 1024, 768, 3072);
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::Ffma);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  EXPECT_EQ(names(variants),
            (std::vector<std::string>{"threads-half", "split-wide"}));
  const KernelTiling &half = *variants[0].tiling.kernel;
  EXPECT_EQ(half.blockM, chosen.kernel->blockM);
  EXPECT_EQ(half.threadM, 8);
  const KernelTiling &split = *variants[1].tiling.kernel;
  EXPECT_EQ(split.blockM, 128);
  EXPECT_EQ(split.blockN, 128);
  EXPECT_GT(split.splitK, 1);
  EXPECT_EQ(3072 % (split.splitK * split.blockK), 0);
}

/// The mma.sync choice for `p` and its one variant, split-deep; checks
/// that there is nothing else.
static std::pair<KernelTiling, KernelTiling>
mmaSyncAndSplitDeep(const GemmProblem &p) {
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  llvm::SmallVector<TilingVariant, 4> variants = variantsOf(p, "sm_90a");
  EXPECT_TRUE(chosen.kernel && chosen.kernel->path == KernelPath::MmaSync);
  EXPECT_EQ(names(variants), std::vector<std::string>{"split-deep"});
  if (!chosen.kernel || variants.size() != 1)
    return {};
  return {*chosen.kernel, *variants[0].tiling.kernel};
}

TEST(AlternativeTilings, MmaSyncRacesADeeperSplitOnASmallOutput) {
  MLIRContext ctx;
  // nn.Linear at 32 tokens into 512 features (a KV projection): the choice
  // is 32x64 mma.sync tiles split twice (16 blocks); the variant splits the
  // 56 K-tiles of 64 fourteen ways, 256 of K each, 112 blocks.
  auto [chosen, deeper] = mmaSyncAndSplitDeep(linearChain(ctx, 32, 512, 3584));
  EXPECT_EQ(chosen.splitK, 2);
  EXPECT_EQ(deeper.splitK, 14);
  EXPECT_EQ(deeper.blockM, chosen.blockM);
  EXPECT_EQ(deeper.blockN, chosen.blockN);
  // A grid that already fills the chip races nothing.
  EXPECT_TRUE(variantsOf(linearChain(ctx, 2048, 2048, 3584), "sm_90").empty());
  // Nor does a K too short to split below 256 a split.
  EXPECT_TRUE(variantsOf(linearChain(ctx, 32, 512, 256), "sm_90a").empty());
}

TEST(AlternativeTilings, DeeperSplitTakesKTilesOf32WhereThoseOf64DoNotDivideK) {
  MLIRContext ctx;
  // K = 3552 is 111 K-tiles of 32 but no whole number of 64: the 32-row
  // choice's K-tiles of 64 cannot split, K-tiles of 32 split three ways.
  auto [chosen, deeper] = mmaSyncAndSplitDeep(linearChain(ctx, 32, 512, 3552));
  EXPECT_EQ(chosen.blockM, 32);
  EXPECT_EQ(chosen.blockK, 64);
  EXPECT_EQ(deeper.blockK, 32);
  EXPECT_EQ(deeper.splitK, 3);
}
