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
