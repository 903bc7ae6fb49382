//===- PtxSignatureTest.cpp - Tests of reading .entry parameters ----------===//

#include "vibegemm/Runtime/PtxSignature.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm::runtime;

namespace {

constexpr const char *kPtx = R"(
.version 8.0
.target sm_90a
.visible .entry gemm_kernel_0(
	.param .u64 .ptr .align 1 gemm_kernel_0_param_0,
	.param .align 64 .b8 gemm_kernel_0_param_1[128],
	.param .f32 gemm_kernel_0_param_2
)
{
	ret;
}
.visible .entry gemm_kernel(
	.param .u32 gemm_kernel_param_0
)
{
	ret;
}
.visible .entry no_params
{
	ret;
}
)";

TEST(PtxSignatureTest, ReadsPointerArrayAndScalarParameters) {
  std::string why;
  std::optional<PtxEntry> entry = findPtxEntry(kPtx, "gemm_kernel_0", why);
  ASSERT_TRUE(entry) << why;
  ASSERT_EQ(entry->params.size(), 3u);
  EXPECT_EQ(entry->params[0].type, ".u64");
  EXPECT_EQ(entry->params[0].bytes, 8u);
  EXPECT_TRUE(entry->params[1].isArray);
  EXPECT_EQ(entry->params[1].bytes, 128u);
  EXPECT_EQ(entry->params[1].name, "gemm_kernel_0_param_1");
  EXPECT_TRUE(entry->params[2].isFloat());
  EXPECT_EQ(entry->params[2].bytes, 4u);
}

TEST(PtxSignatureTest, MatchesWholeNamesOnly) {
  std::string why;
  // "gemm_kernel" is a prefix of "gemm_kernel_0", declared first.
  std::optional<PtxEntry> entry = findPtxEntry(kPtx, "gemm_kernel", why);
  ASSERT_TRUE(entry) << why;
  ASSERT_EQ(entry->params.size(), 1u);
  EXPECT_EQ(entry->params[0].type, ".u32");
  EXPECT_FALSE(findPtxEntry(kPtx, "gemm", why));
  std::optional<PtxEntry> bare = findPtxEntry(kPtx, "no_params", why);
  ASSERT_TRUE(bare) << why;
  EXPECT_TRUE(bare->params.empty());
}

TEST(PtxSignatureTest, RefusesUnreadableDeclarations) {
  std::string why;
  EXPECT_FALSE(findPtxEntry(".entry k(\n\t.param .v4 x\n)", "k", why));
  EXPECT_NE(why.find("has no type"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(findPtxEntry(".entry k(\n\t.param .u32 x", "k", why));
  EXPECT_NE(why.find("unterminated"), std::string::npos) << why;
}

} // namespace
