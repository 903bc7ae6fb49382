//===- TargetInfoTest.cpp - The per-target table --------------------------===//
//
// Lookups in the target table and the facts schedulers rely on.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/TargetInfo.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm;

TEST(TargetInfo, KnowsTheSupportedTargets) {
  for (const char *name : {"sm_80", "sm_90", "sm_90a"}) {
    const TargetInfo *info = lookupTarget(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->name, name);
    EXPECT_GT(info->smCount, 0);
    EXPECT_GE(info->maxSharedBytesPerBlock, info->staticSharedBytesPerBlock);
  }
  EXPECT_EQ(lookupTarget("sm_90")->smCount, 132);
}

TEST(TargetInfo, RefusesUnknownTargets) {
  EXPECT_EQ(lookupTarget("sm_75"), nullptr);
  EXPECT_EQ(lookupTarget(""), nullptr);
}

TEST(TargetChoice, FollowsTheComputeCapability) {
  EXPECT_EQ(chooseTargetForDevice("H100", 9, 0).target, "sm_90a");
  EXPECT_EQ(chooseTargetForDevice("A100", 8, 0).target, "sm_80");
  EXPECT_EQ(chooseTargetForDevice("L40S", 8, 9).target, "sm_80");
  EXPECT_EQ(chooseTargetForDevice("B200", 10, 0).target, "sm_90");
  EXPECT_EQ(chooseTargetForDevice("T4", 7, 5).target, "");
  EXPECT_NE(chooseTargetForDevice("T4", 7, 5).why.find("older"),
            std::string::npos);
}

TEST(TargetChoice, ReadsTheProbesAnswer) {
  TargetChoice h200 = chooseTargetFromProbe(true, "NVIDIA H200 (sm_90)");
  EXPECT_EQ(h200.target, "sm_90a");
  EXPECT_EQ(h200.why, "NVIDIA H200 (compute capability 9.0): wgmma and TMA");
  EXPECT_EQ(chooseTargetFromProbe(true, "NVIDIA RTX PRO 6000 (sm_120)").target,
            "sm_90");
  TargetChoice none = chooseTargetFromProbe(false, "no CUDA driver");
  EXPECT_EQ(none.target, "sm_90");
  EXPECT_NE(none.why.find("no CUDA driver"), std::string::npos);
  // An answer it cannot read counts as no GPU.
  EXPECT_EQ(chooseTargetFromProbe(true, "something else").target, "sm_90");
}

TEST(TargetInfo, BandwidthFollowsTheMeasuringGpu) {
  const TargetInfo &hopper = *lookupTarget("sm_90a");
  EXPECT_EQ(hopper.dramGBps, 4800.0); // the H200's
  EXPECT_EQ(forDevice(hopper, "NVIDIA H100 80GB HBM3 (sm_90)").dramGBps,
            3350.0);
  EXPECT_EQ(forDevice(hopper, "NVIDIA H100 PCIe (sm_90)").dramGBps, 2000.0);
  EXPECT_EQ(forDevice(hopper, "NVIDIA H100 NVL (sm_90)").dramGBps, 3900.0);
  EXPECT_EQ(forDevice(hopper, "NVIDIA H200 (sm_90)").dramGBps, 4800.0);
  EXPECT_EQ(forDevice(hopper, "fake GPU (test runner)").dramGBps, 4800.0);
  const TargetInfo &ampere = *lookupTarget("sm_80");
  EXPECT_EQ(forDevice(ampere, "NVIDIA A100-SXM4-40GB (sm_80)").dramGBps,
            1555.0);
  EXPECT_EQ(forDevice(ampere, "NVIDIA A100-SXM4-80GB (sm_80)").dramGBps,
            2039.0);
  // Everything else stays the table's.
  EXPECT_EQ(forDevice(hopper, "NVIDIA H100 80GB HBM3").smCount, 132);
}
