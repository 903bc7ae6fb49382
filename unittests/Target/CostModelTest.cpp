//===- CostModelTest.cpp - Launch occupancy as the prompts show it --------===//
//
// launchFits and describeLaunchFits on launch plans like the lowering
// writes: blocks resident per SM from threads, registers and shared memory,
// clusters, and more than one launch.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/CostModel.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm;
namespace json = llvm::json;

namespace {

json::Object launch(llvm::StringRef kernel, int64_t gridX, int64_t gridY,
                    int64_t threads, int64_t sharedBytes) {
  return json::Object{{"kernel", kernel},
                      {"grid", json::Array{gridX, gridY, 1}},
                      {"block", json::Array{threads, 1, 1}},
                      {"shared_bytes", sharedBytes}};
}

TEST(LaunchFits, SharedMemoryAndRegistersBoundTheBlocksPerSm) {
  const TargetInfo *h100 = lookupTarget("sm_90a");
  ASSERT_NE(h100, nullptr);
  // Decode's 32x64 mma.sync tiles: 296 blocks of 128 threads, 54 KiB of
  // dynamic shared memory: 4 fit in 227 KiB.
  json::Object plan{
      {"launches", json::Array{launch("k0", 296, 1, 128, 54 * 1024)}}};
  std::vector<LaunchFit> fits =
      launchFits(plan, {{"k0", 40, 0, 0, 0, 0}}, *h100);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].blocks, 296);
  EXPECT_EQ(fits[0].residentPerSm, 4);
  EXPECT_FALSE(fits[0].spills);
  EXPECT_EQ(describeLaunchFits(fits),
            "296 blocks x 128 threads, 4 per SM, 54 KiB shared");
  // 255 registers a thread over 384 threads: one block an SM, and spills.
  json::Object heavy{
      {"launches", json::Array{launch("k0", 296, 1, 384, 1024)}}};
  fits = launchFits(heavy, {{"k0", 255, 8, 8, 0, 0}}, *h100);
  EXPECT_EQ(fits[0].residentPerSm, 1);
  EXPECT_TRUE(fits[0].spills);
}

TEST(LaunchFits, ClustersAndSeveralLaunches) {
  const TargetInfo *h100 = lookupTarget("sm_90a");
  ASSERT_NE(h100, nullptr);
  json::Object gemm = launch("gemm", 66, 2, 384, 197632);
  gemm["cluster"] = json::Array{1, 2, 1};
  json::Object plan{{"launches", json::Array{std::move(gemm),
                                             launch("combine", 1, 1, 256, 0)}}};
  std::vector<LaunchFit> fits =
      launchFits(plan, {{"gemm", 168, 0, 0, 0, 0}}, *h100);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].clusterBlocks, 2);
  EXPECT_EQ(describeLaunchFits(fits),
            "132 blocks x 384 threads in clusters of 2, 1 per SM, 193 KiB "
            "shared + 1 block x 256 threads, 8 per SM");
}

} // namespace
