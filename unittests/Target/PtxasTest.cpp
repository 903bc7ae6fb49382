//===- PtxasTest.cpp - Parsing ptxas resource reports --------------------===//
//
// The `ptxas -v` log parser against logs in the format CUDA 13 prints.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/Ptxas.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm;

namespace {

constexpr const char *kTwoKernels =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'd0_kernel_0' for 'sm_90'\n"
    "ptxas info    : Function properties for d0_kernel_0\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 128 registers, used 1 barriers, 8192 bytes smem, "
    "376 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'd0_kernel_1' for 'sm_90'\n"
    "ptxas info    : Function properties for d0_kernel_1\n"
    "    64 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads\n"
    "ptxas info    : Used 255 registers, 384 bytes cmem[0]\n";

TEST(PtxasLog, ParsesEveryKernel) {
  std::vector<KernelResources> kernels = parsePtxasLog(kTwoKernels);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].kernel, "d0_kernel_0");
  EXPECT_EQ(kernels[0].registers, 128);
  EXPECT_EQ(kernels[0].sharedBytes, 8192);
  EXPECT_EQ(kernels[0].spillStoreBytes, 0);
  EXPECT_EQ(kernels[1].kernel, "d0_kernel_1");
  EXPECT_EQ(kernels[1].registers, 255);
  EXPECT_EQ(kernels[1].stackBytes, 64);
  EXPECT_EQ(kernels[1].spillStoreBytes, 24);
  EXPECT_EQ(kernels[1].spillLoadBytes, 16);
  EXPECT_EQ(kernels[1].sharedBytes, 0);
}

TEST(PtxasLog, SummarySumsSpillsAndTakesMaxima) {
  llvm::json::Object summary = resourcesToJson(parsePtxasLog(kTwoKernels));
  EXPECT_EQ(summary.getInteger("registers"), 255);
  EXPECT_EQ(summary.getInteger("spill_bytes"), 40);
  EXPECT_EQ(summary.getInteger("shared_bytes"), 8192);
  EXPECT_EQ(summary.getArray("kernels")->size(), 2u);
}

TEST(PtxasLog, ErrorsAndNoiseGiveNoKernels) {
  EXPECT_TRUE(parsePtxasLog("").empty());
  EXPECT_TRUE(parsePtxasLog("ptxas fatal   : Unresolved extern function "
                            "'foo'\n")
                  .empty());
}

TEST(Ptxas, MissingExplicitPathIsNotFound) {
  EXPECT_FALSE(findPtxas("/nonexistent/bin/ptxas").has_value());
}

} // namespace
