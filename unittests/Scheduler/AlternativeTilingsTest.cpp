//===- AlternativeTilingsTest.cpp - Tests of the built-in variants --------===//

#include "vibegemm/Scheduler/BuiltinScheduler.h"

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

TEST(AlternativeTilings, PersistentAndClusterVariantsOfTheWideWgmmaTile) {
  MLIRContext ctx;
  GemmProblem p = problem(ctx, 4096, 4096, 4096);
  const TargetInfo *target = &hopper();
  SimtTiling chosen = chooseSimtTiling(p, *target);
  ASSERT_TRUE(chosen.tensorCore && chosen.tensorCore->wgmma);
  EXPECT_EQ(chosen.tensorCore->persistentBlocks, 0);
  EXPECT_EQ(chosen.tensorCore->clusterRows, 1);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, *target);
  ASSERT_EQ(variants.size(), 4u);
  EXPECT_EQ(variants[0].name, "persistent");
  const TensorCoreTiling &v = *variants[0].tiling.tensorCore;
  EXPECT_EQ(v.persistentBlocks, target->smCount);
  EXPECT_EQ(v.clusterRows, 1);
  EXPECT_EQ(v.stages, 3);
  EXPECT_EQ(v.blockM, chosen.tensorCore->blockM);
  EXPECT_EQ(v.blockN, chosen.tensorCore->blockN);
  EXPECT_EQ(v.consumers, chosen.tensorCore->consumers);
  EXPECT_EQ(v.groupRows, chosen.tensorCore->groupRows);
  EXPECT_FALSE(v.tmaStore);
  // The persistent kernel with the TMA-store epilogue, whose smaller
  // staging leaves room for four stages.
  EXPECT_EQ(variants[1].name, "persistent-tma");
  const TensorCoreTiling &tma = *variants[1].tiling.tensorCore;
  EXPECT_TRUE(tma.tmaStore);
  EXPECT_EQ(tma.persistentBlocks, target->smCount);
  EXPECT_EQ(tma.stages, 4);
  EXPECT_EQ(tma.clusterRows, 1);
  // 32 tile rows pair up: clusters of two along M, otherwise the choice.
  EXPECT_EQ(variants[2].name, "cluster");
  const TensorCoreTiling &clustered = *variants[2].tiling.tensorCore;
  EXPECT_EQ(clustered.clusterRows, 2);
  EXPECT_EQ(clustered.persistentBlocks, 0);
  EXPECT_EQ(clustered.stages, chosen.tensorCore->stages);
  EXPECT_EQ(clustered.groupRows, chosen.tensorCore->groupRows);
  // All three: cuBLAS's kernel for this tile.
  EXPECT_EQ(variants[3].name, "persistent-cluster-tma");
  const TensorCoreTiling &all = *variants[3].tiling.tensorCore;
  EXPECT_EQ(all.clusterRows, 2);
  EXPECT_EQ(all.persistentBlocks, target->smCount);
  EXPECT_EQ(all.stages, 4);
  EXPECT_TRUE(all.tmaStore);
  // A variant has no variants of its own.
  for (const TilingVariant &variant : variants)
    EXPECT_TRUE(alternativeTilings(p, variant.tiling, *target).empty());
}

TEST(AlternativeTilings, WiderSplitTileForHugeK) {
  MLIRContext ctx;
  GemmProblem p = problem(ctx, 128, 128, 65536);
  SimtTiling chosen = chooseSimtTiling(p, hopper());
  ASSERT_TRUE(chosen.tensorCore && chosen.tensorCore->wgmma);
  ASSERT_EQ(chosen.tensorCore->blockM, 64);
  ASSERT_GT(chosen.tensorCore->splitK, 1);
  llvm::SmallVector<TilingVariant, 4> variants =
      alternativeTilings(p, chosen, hopper());
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_EQ(variants[0].name, "split-wide");
  const TensorCoreTiling &w = *variants[0].tiling.tensorCore;
  EXPECT_EQ(w.blockM, 128);
  EXPECT_EQ(w.blockN, 128);
  // The same number of blocks: one tile row fewer, twice the splits.
  EXPECT_EQ(w.splitK, 2 * chosen.tensorCore->splitK);
  EXPECT_TRUE(alternativeTilings(p, variants[0].tiling, hopper()).empty());
}

TEST(AlternativeTilings, NoClusterWhereTheTileRowsDoNotPairUp) {
  MLIRContext ctx;
  // 8205 rows: 65 tiles of 128 (the irregular shape; its padded copies
  // keep M).
  llvm::SmallVector<TilingVariant, 4> variants =
      variantsOf(problem(ctx, 8205, 2949, 5921), "sm_90a");
  // Its bf16 rows of 2949 (5898 bytes) are no multiple of 16 bytes, which
  // TMA stores need.
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_EQ(variants[0].name, "persistent");
}

TEST(AlternativeTilings, TmaStoreForRaggedTiles) {
  MLIRContext ctx;
  // 2000 rows: the last 128-row tile is ragged and ends at the output's
  // edge, where TMA clips its boxes (16 tile rows pair up).
  EXPECT_EQ(names(variantsOf(problem(ctx, 2000, 4096, 4096), "sm_90a")),
            (std::vector<std::string>{"persistent", "persistent-tma",
                                      "cluster", "persistent-cluster-tma"}));
}

TEST(AlternativeTilings, TmaStoreForBatchedOutputs) {
  MLIRContext ctx;
  // 128 batches of 512x2048: 3-D tensor maps, a batch box of 1.
  GemmProblem batched = problem(ctx, 512, 2048, 1024);
  batched.batch = 128;
  EXPECT_EQ(names(variantsOf(batched, "sm_90a")),
            (std::vector<std::string>{"persistent", "persistent-tma",
                                      "cluster", "persistent-cluster-tma"}));
}

TEST(AlternativeTilings, PersistentClustersWithoutTmaStoreForOddRows) {
  MLIRContext ctx;
  // 2052 bf16 columns (4104 bytes a row): no TMA stores; the 16 tile rows
  // pair up, so the persistent clusters keep the staged epilogue and its
  // 3 stages.
  llvm::SmallVector<TilingVariant, 4> variants =
      variantsOf(problem(ctx, 2048, 2052, 4096), "sm_90a");
  ASSERT_EQ(names(variants), (std::vector<std::string>{
                                 "persistent", "cluster", "persistent-cluster"}));
  EXPECT_FALSE(variants[2].tiling.tensorCore->tmaStore);
  EXPECT_EQ(variants[2].tiling.tensorCore->stages, 3);
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
  // f32 without TF32: the FFMA kernel.
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
