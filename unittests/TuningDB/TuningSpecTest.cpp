//===- TuningSpecTest.cpp - Tuning spec files -----------------------------===//
//
// Spec files written deterministically, read back to the same bytes, and
// round-tripped through a database; bad files refused.
//
//===----------------------------------------------------------------------===//

#include "TuningDBTestUtil.h"

#include "vibegemm/TuningDB/TuningSpec.h"

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::dbtest;

namespace {

//===----------------------------------------------------------------------===//
// Spec files
//===----------------------------------------------------------------------===//

WinnerInfo makeWinner(const std::string &signature, const std::string &target,
                      std::optional<double> time, const std::string &text) {
  WinnerInfo w;
  w.signature = signature;
  w.target = target;
  w.toolchain = "22.1.8";
  w.script = text;
  w.timeMs = time;
  w.measured = time.has_value();
  w.device = "NVIDIA H200";
  w.model = "model \"q\"";
  return w;
}

TEST(TuningSpec, SymbolIsSanitized) {
  EXPECT_EQ(specSymbol("mm64x64x64_f32_f32_NN_0123abcd"),
            "vg_mm64x64x64_f32_f32_NN_0123abcd");
  EXPECT_EQ(specSymbol("a.b-c d"), "vg_a_b_c_d");
}

TEST(TuningSpec, WritesADeterministicModule) {
  std::vector<WinnerInfo> winners = {
      makeWinner("sig_b", "sm_90", 0.004478447951466128,
                 script("gemm_d1",
                        "  %0 = transform.structured.match "
                        "ops{[\"linalg.fill\"]} in %arg0 : "
                        "(!transform.any_op) -> !transform.any_op\n")),
      makeWinner("sig_a", "sm_90", std::nullopt, script("gemm_d0"))};
  auto text = writeSpec(winners);
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  std::swap(winners[0], winners[1]);
  auto swapped = writeSpec(winners);
  ASSERT_TRUE(bool(swapped));
  EXPECT_EQ(*text, *swapped);
  EXPECT_EQ(
      *text,
      "// vibegemm tuning spec: best schedule per dispatch signature.\n"
      "// Exported by vibegemm-db; apply with\n"
      "//   vibegemm-opt --vibegemm-compile=\"specs=THIS_FILE\" model.mlir\n"
      "module attributes {transform.with_named_sequence, "
      "vibegemm.tuning_spec} {\n"
      "  // sig_a: no time (estimated) on NVIDIA H200, model model \"q\"\n"
      "  transform.named_sequence @vg_sig_a(%arg0: !transform.any_op "
      "{transform.consumed}) attributes {vibegemm.signature = \"sig_a\", "
      "vibegemm.target = \"sm_90\", vibegemm.toolchain = \"22.1.8\", "
      "vibegemm.measured = false, vibegemm.device = \"NVIDIA H200\", "
      "vibegemm.model = \"model \\\"q\\\"\"} {\n"
      "    transform.yield \n"
      "  }\n"
      "\n"
      "  // sig_b: 0.004478 ms (measured) on NVIDIA H200, model model \"q\"\n"
      "  transform.named_sequence @vg_sig_b(%arg0: !transform.any_op "
      "{transform.consumed}) attributes {vibegemm.signature = \"sig_b\", "
      "vibegemm.target = \"sm_90\", vibegemm.toolchain = \"22.1.8\", "
      "vibegemm.time_ms = 0.004478447951466128, vibegemm.measured = true, "
      "vibegemm.device = \"NVIDIA H200\", vibegemm.model = "
      "\"model \\\"q\\\"\"} {\n"
      "    %0 = transform.structured.match ops{[\"linalg.fill\"]} in %arg0 "
      ": (!transform.any_op) -> !transform.any_op\n"
      "    transform.yield \n"
      "  }\n"
      "}\n");
}

TEST(TuningSpec, ReadBackWritesTheSameBytes) {
  std::vector<WinnerInfo> winners = {
      // Already has attributes, results, a comment with a brace, odd
      // indentation and a blank line.
      makeWinner("sig/x", "sm_90", 1e-05,
                 "// leading comment\n"
                 "transform.named_sequence @s(%arg0: !transform.any_op "
                 "{transform.consumed}) -> () attributes {foo = "
                 "array<i64: 1, 2>, vibegemm.signature = \"stale\"} {\n"
                 "      // a } in a comment\n"
                 "\n"
                 "\t%0 = transform.param.constant \"}\" -> "
                 "!transform.any_param\n"
                 "  transform.yield \n}\n\n"),
      // One signature on two targets.
      makeWinner("sig_y", "sm_80", 12.0, script("a")),
      makeWinner("sig_y", "sm_90", 3.25, script("b")),
  };
  winners[0].device = "";
  winners[0].model = "";
  winners[0].measured = false;
  auto first = writeSpec(winners);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_NE(first->find("@vg_sig_y_sm_80_22_1_8("), std::string::npos);
  EXPECT_NE(first->find("@vg_sig_y_sm_90_22_1_8("), std::string::npos);
  EXPECT_NE(first->find("@vg_sig_x("), std::string::npos);
  EXPECT_NE(first->find("vibegemm.time_ms = 1.0e-05"), std::string::npos);
  EXPECT_EQ(first->find("stale"), std::string::npos);
  EXPECT_EQ(first->find("leading comment"), std::string::npos);

  auto read = readSpec(*first, "spec.mlir");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].signature, "sig/x");
  EXPECT_EQ((*read)[0].timeMs, 1e-05);
  EXPECT_FALSE((*read)[0].measured);
  EXPECT_EQ((*read)[1].target, "sm_80");
  EXPECT_EQ((*read)[2].timeMs, 3.25);
  EXPECT_EQ((*read)[2].model, "model \"q\"");
  // The stored script is a plain sequence again.
  EXPECT_EQ((*read)[2].script,
            "transform.named_sequence @vg_sig_y_sm_90_22_1_8(%arg0: "
            "!transform.any_op {transform.consumed}) {\n"
            "  transform.yield \n}");
  EXPECT_NE(
      (*read)[0].script.find("-> () attributes {foo = array<i64: 1, 2>} {\n"),
      std::string::npos);

  auto second = writeSpec(*read);
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(*second, *first);
}

TEST(TuningSpec, RoundTripsThroughADatabase) {
  TempDir dir;
  auto source = openOrDie(dir.file("a.db"));
  ASSERT_TRUE(source);
  ASSERT_FALSE(
      bool(source->record(makeRun("s1", 0.1 + 0.2, true, script("d0")))));
  ASSERT_FALSE(bool(source->record(makeRun("s2", 7.0, false, script("d1")))));
  TuningRun sustained = makeRun("s3", 0.25, true, script("d2"));
  sustained.timing = kSustainedClockTiming;
  ASSERT_FALSE(bool(source->record(sustained)));
  auto first = writeSpec(*source->listWinners());
  ASSERT_TRUE(bool(first));

  auto target = openOrDie(dir.file("b.db"));
  ASSERT_TRUE(target);
  auto entries = readSpec(*first, "spec.mlir");
  ASSERT_TRUE(bool(entries));
  for (const WinnerInfo &w : *entries) {
    auto stored = target->importWinner(w);
    ASSERT_TRUE(bool(stored));
    EXPECT_TRUE(*stored);
  }
  auto second = writeSpec(*target->listWinners());
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(*second, *first);
  // Importing the same spec again keeps what is there (not better).
  auto again = target->importWinner(entries->front());
  ASSERT_TRUE(bool(again));
  EXPECT_FALSE(*again);
  auto imported = target->listWinners({"s1", "", ""});
  ASSERT_TRUE(bool(imported));
  EXPECT_EQ(imported->front().runs, 2);
  EXPECT_EQ(imported->front().device, "NVIDIA H200");
  EXPECT_EQ(imported->front().scriptHash.size(), 16u);
  // The timing protocol travels with the spec.
  EXPECT_NE(first->find("vibegemm.timing = \"sustained-clock\""),
            std::string::npos);
  auto hot = target->listWinners({"s3", "", ""});
  ASSERT_TRUE(bool(hot));
  EXPECT_EQ(hot->front().timing, kSustainedClockTiming);
  EXPECT_EQ(target->listWinners({"s1", "", ""})->front().timing, "");
}

TEST(TuningSpec, ReportsBadFiles) {
  auto empty = readSpec("module {}\n", "empty.mlir");
  ASSERT_FALSE(bool(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("empty.mlir: no"),
            std::string::npos);
  auto unbalanced =
      readSpec("module {\n  transform.named_sequence @x(%a: !transform.any_op) "
               "attributes {vibegemm.signature = \"s\"} {\n",
               "cut.mlir");
  ASSERT_FALSE(bool(unbalanced));
  EXPECT_NE(llvm::toString(unbalanced.takeError()).find("cut.mlir:2:"),
            std::string::npos);
  auto noTarget = readSpec("transform.named_sequence @x() attributes "
                           "{vibegemm.signature = \"s\"} {}",
                           "t.mlir");
  ASSERT_FALSE(bool(noTarget));
  EXPECT_NE(llvm::toString(noTarget.takeError()).find("vibegemm.target"),
            std::string::npos);
  WinnerInfo junk = makeWinner("s", "sm_90", 1.0, "not a schedule");
  auto written = writeSpec({junk});
  ASSERT_FALSE(bool(written));
  llvm::consumeError(written.takeError());
}

} // namespace
