//===- WgmmaAnalysisTest.cpp - The wgmma analysis's plans and refusals ----===//
//
// Runs analyseWgmma on small parsed block GEMMs: each refusal's reason, a
// plan's facts, and that the analysis leaves the IR as it was.
//
//===----------------------------------------------------------------------===//

#include "Wgmma/WgmmaPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

namespace {

/// A block's GEMM C[M, N] += A[M, K] * B[K, N] inside a one-block launch,
/// with memref types `a`, `b`, `c` and function attributes `attrs`.
std::string blockGemm(StringRef a, StringRef b, StringRef c,
                      StringRef attrs = "") {
  return llvm::formatv(R"mlir(
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @gemm(%a: {0}, %b: {1}, %c: {2}) {3} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : {0}, {1}) outs(%c : {2})
    gpu.terminator
  }
  return
}
)mlir",
                       a, b, c, attrs)
      .str();
}

/// A bf16 GEMM of M x N x K whose operands are whole buffers.
std::string bf16Gemm(int64_t m, int64_t n, int64_t k) {
  return blockGemm(llvm::formatv("memref<{0}x{1}xbf16>", m, k).str(),
                   llvm::formatv("memref<{0}x{1}xbf16>", k, n).str(),
                   llvm::formatv("memref<{0}x{1}xf32>", m, n).str());
}

class WgmmaAnalysisTest : public ::testing::Test {
protected:
  WgmmaAnalysisTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                        linalg::LinalgDialect, memref::MemRefDialect>();
  }

  /// Parses `ir` and analyses its one linalg.matmul under `options`;
  /// `why` gets the refusal. Checks the analysis left the IR unchanged.
  FailureOr<WgmmaPlan> analyse(StringRef ir, const WgmmaOptions &options = {}) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << ir.str();
    if (!module)
      return failure();
    linalg::MatmulOp gemm;
    module->walk([&](linalg::MatmulOp op) { gemm = op; });
    EXPECT_TRUE(gemm);
    std::string before = print();
    why.clear();
    FailureOr<WgmmaPlan> plan = analyseWgmma(gemm, options, why);
    EXPECT_EQ(print(), before) << "the analysis changed the IR";
    EXPECT_EQ(succeeded(plan), why.empty()) << why;
    return plan;
  }

  /// The refusal of `ir` under `options`.
  std::string refusal(StringRef ir, const WgmmaOptions &options = {}) {
    EXPECT_TRUE(failed(analyse(ir, options)));
    return why;
  }

  std::string print() {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string why;
};

TEST_F(WgmmaAnalysisTest, PlansABf16Gemm) {
  WgmmaOptions options;
  options.stages = 3;
  options.consumers = 2;
  FailureOr<WgmmaPlan> plan = analyse(bf16Gemm(128, 192, 256), options);
  ASSERT_TRUE(succeeded(plan));
  EXPECT_EQ(plan->blockM, 128);
  EXPECT_EQ(plan->blockN, 192);
  EXPECT_EQ(plan->blockK, 64);
  EXPECT_EQ(plan->mmaK, 16);
  EXPECT_EQ(plan->elementBytes, 2);
  EXPECT_EQ(plan->kTileCount, 4);
  EXPECT_EQ(plan->rowsPerConsumer, 64);
  EXPECT_EQ(plan->threads(), 384);
  EXPECT_TRUE(plan->lhsKMajor);
  EXPECT_FALSE(plan->rhsKMajor);
  EXPECT_EQ(plan->lhs.boxRows, 128);
  EXPECT_EQ(plan->rhs.boxRows, 64);
  EXPECT_FALSE(plan->batched);
  EXPECT_FALSE(plan->splitK);
  EXPECT_TRUE(plan->chain.ops.empty());
  // Whole buffers: the tiles are their own roots.
  EXPECT_EQ(plan->lhs.root, plan->lhs.tile);
  EXPECT_EQ(plan->rhs.root, plan->rhs.tile);
  // Three stages of 128x64 A and 64x192 B bf16, and the swizzle's slack.
  EXPECT_EQ(plan->stageBytes(), (128 * 64 + 64 * 192) * 2);
  EXPECT_EQ(plan->sharedBytes(), 3 * plan->stageBytes() + 1024);
}

TEST_F(WgmmaAnalysisTest, RefusesATargetWithoutWgmma) {
  std::string ir = blockGemm("memref<128x128xbf16>", "memref<128x128xbf16>",
                             "memref<128x128xf32>",
                             "attributes {vibegemm.target = "
                             "\"sm_80\"}");
  EXPECT_EQ(refusal(ir), "wgmma needs sm_90a; the dispatch is scheduled for "
                         "sm_80 (vibegemm.target)");
}

TEST_F(WgmmaAnalysisTest, RefusesUnsupportedElementTypes) {
  EXPECT_EQ(refusal(blockGemm("memref<128x128xf64>", "memref<128x128xf64>",
                              "memref<128x128xf32>")),
            "wgmma needs f16, bf16, f32 or FP8 (f8E4M3FN, f8E5M2) operands "
            "and an f32 accumulator");
  EXPECT_EQ(refusal(blockGemm("memref<128x128xbf16>", "memref<128x128xbf16>",
                              "memref<128x128xbf16>")),
            "wgmma needs f16, bf16, f32 or FP8 (f8E4M3FN, f8E5M2) operands "
            "and an f32 accumulator");
}

TEST_F(WgmmaAnalysisTest, RefusesF32WithoutTf32) {
  EXPECT_EQ(refusal(blockGemm("memref<128x128xf32>", "memref<128x128xf32>",
                              "memref<128x128xf32>")),
            "f32 operands take wgmma only with f32_precision = \"tf32\" "
            "(which changes accuracy; gemm_to_ffma keeps f32 accuracy)");
}

TEST_F(WgmmaAnalysisTest, RefusesStridedViews) {
  // Every other row of A: TMA reads unit-stride boxes only.
  std::string ir = R"mlir(
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @gemm(%a: memref<256x128xbf16>, %b: memref<128x128xbf16>,
                %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %rows = memref.subview %a[0, 0] [128, 128] [2, 1]
        : memref<256x128xbf16> to memref<128x128xbf16, strided<[256, 1]>>
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%rows, %b : memref<128x128xbf16, strided<[256, 1]>>,
                        memref<128x128xbf16>)
        outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}
)mlir";
  EXPECT_EQ(refusal(ir), "TMA operands must be unit-stride views of a buffer");
}

TEST_F(WgmmaAnalysisTest, RefusesRowsTmaCannotStride) {
  // 100 bf16 are 200 bytes, not a multiple of 16.
  EXPECT_EQ(refusal(bf16Gemm(128, 128, 100)),
            "rows of 100 elements are not a multiple of 16 bytes, as TMA "
            "needs");
}

TEST_F(WgmmaAnalysisTest, RefusesTilesLargerThanWgmmaAllows) {
  EXPECT_EQ(refusal(bf16Gemm(512, 128, 64)),
            "a 512x128 block tile is larger than TMA boxes and wgmma allow "
            "(256x256)");
  // 256x256 fits the boxes, but one consumer would hold all of it.
  EXPECT_EQ(refusal(bf16Gemm(256, 256, 64)),
            "each consumer warpgroup would hold a 256x256 accumulator, 512 "
            "registers per thread (at most 128); add consumers");
}

TEST_F(WgmmaAnalysisTest, RefusesRingsBeyondSharedMemory) {
  WgmmaOptions options;
  options.stages = 8;
  options.consumers = 2;
  EXPECT_EQ(refusal(bf16Gemm(128, 256, 256), options),
            "the 8-stage ring needs 394240 bytes of shared memory (at most "
            "232448 on sm_90a)");
}

TEST_F(WgmmaAnalysisTest, RefusesTmaStoreWithoutPersistentBlocks) {
  WgmmaOptions options;
  options.tmaStore = true;
  EXPECT_EQ(refusal(bf16Gemm(128, 128, 64), options),
            "tma_store needs persistent_blocks");
}

} // namespace
