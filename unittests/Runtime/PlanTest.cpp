//===- PlanTest.cpp - Tests of launch plan validation ---------------------===//

#include "vibegemm/Runtime/Plan.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <tuple>

using namespace mlir::vibegemm::runtime;

namespace {

/// A directory holding a PTX file declaring the kernel plans launch.
class PlanTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("plantest", dir));
    llvm::SmallString<128> ptx(dir);
    llvm::sys::path::append(ptx, "k.ptx");
    std::error_code ec;
    llvm::raw_fd_ostream(ptx, ec)
        << ".visible .entry k0(\n\t.param .u64 .ptr .align 1 k0_param_0,\n"
           "\t.param .u64 .ptr .align 1 k0_param_1,\n"
           "\t.param .u64 .ptr .align 1 k0_param_2,\n"
           "\t.param .u64 k0_param_3,\n\t.param .u32 k0_param_4,\n"
           "\t.param .f32 k0_param_5\n)\n{\n\tret;\n}\n";
    planPath = (dir + "/p.plan.json").str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  llvm::Expected<Plan> parse(llvm::StringRef text) {
    llvm::Expected<llvm::json::Value> doc = llvm::json::parse(text);
    EXPECT_TRUE(static_cast<bool>(doc));
    return parsePlan(*doc, planPath);
  }

  /// kGood with its launch's grid written as `grid` (which may add fields).
  llvm::Expected<Plan> parseWithGrid(llvm::StringRef grid);

  /// `text` read for `sizes` is refused with an error containing `message`.
  void expectError(const std::string &text, const SizeBindings &sizes,
                   llvm::StringRef message) {
    llvm::Expected<llvm::json::Value> doc = llvm::json::parse(text);
    ASSERT_TRUE(static_cast<bool>(doc));
    llvm::Expected<Plan> plan = parsePlan(*doc, planPath, sizes);
    ASSERT_FALSE(static_cast<bool>(plan)) << "accepted: " << message.str();
    std::string error = llvm::toString(plan.takeError());
    EXPECT_NE(error.find(message), std::string::npos) << error;
  }

  llvm::SmallString<128> dir;
  std::string planPath;
};

constexpr const char *kGood = R"({
  "version": 1, "function": "f", "dispatch": "f", "target": "sm_90",
  "flops": 128,
  "buffers": [
    {"name": "arg0", "kind": "input", "arg_index": 0, "shape": [4, 8], "dtype": "bf16"},
    {"name": "arg1", "kind": "input", "arg_index": 1, "shape": [8, 2], "dtype": "bf16"},
    {"name": "res0", "kind": "output", "result_index": 0, "shape": [4, 2], "dtype": "f32"},
    {"name": "ws0", "kind": "scratch", "bytes": 64, "zero_init": true}],
  "launches": [{"ptx": "k.ptx", "kernel": "k0", "grid": [1, 1, 1],
                "block": [32, 1, 1], "shared_bytes": 0,
                "args": [{"buffer": "arg0"}, {"buffer": "arg1"},
                         {"buffer": "res0"}, {"i64": 8}, {"i32": 2},
                         {"f32": 0.5}]}],
  "reference": {"kind": "gemm", "batch": 1, "m": 4, "n": 2, "k": 8,
                "a": "arg0", "b": "arg1", "c": "res0",
                "transpose_a": false, "transpose_b": false}
})";

llvm::Expected<Plan> PlanTest::parseWithGrid(llvm::StringRef grid) {
  std::string text = kGood;
  std::string from = "\"grid\": [1, 1, 1]";
  text.replace(text.find(from), from.size(), grid.str());
  return parse(text);
}

} // namespace

TEST_F(PlanTest, ReadsEveryField) {
  llvm::Expected<Plan> plan = parse(kGood);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->buffers.size(), 4u);
  EXPECT_EQ(plan->find("arg0")->bytes, 64u);
  EXPECT_EQ(plan->find("ws0")->kind, PlanBuffer::Kind::Scratch);
  EXPECT_TRUE(plan->find("ws0")->zeroInit);
  EXPECT_EQ(plan->ioBytes(), 64u + 32u + 32u);
  EXPECT_EQ(plan->workingSetBytes(), 64u + 32u + 32u + 64u);
  ASSERT_EQ(plan->launches.size(), 1u);
  EXPECT_EQ(plan->launches[0].args.size(), 6u);
  EXPECT_EQ(plan->launches[0].args[4].kind, PlanArg::Kind::I32);
  ASSERT_TRUE(plan->reference.has_value());
  ASSERT_TRUE(plan->gemm.has_value());
  EXPECT_EQ(plan->gemm->k, 8);
  EXPECT_EQ(plan->flops, 128);
}

TEST_F(PlanTest, RefusesWhatItCannotTrust) {
  auto expectError = [&](std::string from, std::string to,
                         llvm::StringRef message) {
    std::string text = kGood;
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    llvm::Expected<Plan> plan = parse(text);
    ASSERT_FALSE(static_cast<bool>(plan)) << "accepted: " << to;
    std::string error = llvm::toString(plan.takeError());
    EXPECT_NE(error.find(message), std::string::npos) << error;
    EXPECT_NE(error.find(planPath), std::string::npos) << error;
  };
  expectError("\"version\": 1", "\"version\": 3", "unsupported plan version");
  expectError("\"k.ptx\"", "\"/tmp/k.ptx\"", "must be a file name");
  expectError("\"k.ptx\"", "\"gone.ptx\"", "not found");
  expectError("{\"i64\": 8}", "{\"i16\": 8}", "expected buffer, i64");
  expectError("[32, 1, 1]", "[33, 32, 1]", "more than 1024 threads");
  expectError("\"block\": [32, 1, 1]",
              "\"block\": [32, 1, 1], \"cluster\": [1, 2, 1]",
              "the grid is not a whole number of clusters");
  expectError("\"grid\": [1, 1, 1]",
              "\"grid\": [16, 1, 1], \"cluster\": [16, 1, 1]",
              "more than 8 blocks per cluster");
  expectError("\"grid\": [1, 1, 1]",
              "\"grid\": [1, 1, 1], \"cluster\": [1, 0, 1]",
              "\"cluster\" entries must be positive");
  expectError("\"grid\": [1, 1, 1]", "\"grid\": [1, 1, 1], \"programmatic\": 1",
              "\"programmatic\" must be true or false");
  expectError("[4, 8], \"dtype\": \"bf16\"", "[4, 8], \"dtype\": \"f8\"",
              "unknown \"dtype\"");
  expectError("\"bytes\": 64", "\"bytes\": -1", "scratch needs");
  expectError("\"m\": 4", "\"m\": 5", "the GEMM needs");
  expectError("\"kind\": \"gemm\"", "\"kind\": \"conv\"",
              "only \"kind\": \"gemm\"");
  expectError("\"dtype\": \"bf16\"}", "\"dtype\": \"bf16\", \"verify_scale\": 0}",
              "\"verify_scale\" must be in (0, 1]");
  expectError("\"dtype\": \"bf16\"}", "\"dtype\": \"bf16\", \"verify_scale\": 2}",
              "\"verify_scale\" must be in (0, 1]");
  expectError("\"dtype\": \"f32\"}", "\"dtype\": \"f32\", \"verify_scale\": 0.5}",
              "on an input");
  expectError("\"kernel\": \"k0\"", "\"kernel\": \"k\"", "no .entry 'k'");
  expectError("{\"f32\": 0.5}", "{\"i32\": 1}",
              "a 4-byte i32 argument, but parameter k0_param_5");
  expectError("{\"i32\": 2}", "{\"i64\": 2}",
              "a 8-byte i64 argument, but parameter k0_param_4");
  expectError("{\"i32\": 2},", "", "passes 5 arguments; .entry k0 takes 6");
  expectError("\"target\": \"sm_90\"",
              "\"target\": \"sm_90\", \"f32_precision\": \"fp8\"",
              "\"f32_precision\" must be \"tf32\" or \"3xtf32\"");
}

TEST_F(PlanTest, ReadsClusterShapes) {
  llvm::Expected<Plan> plan =
      parseWithGrid("\"grid\": [4, 8, 1], \"cluster\": [1, 2, 1]");
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const PlanLaunch &launch = plan->launches[0];
  EXPECT_TRUE(launch.clustered());
  EXPECT_EQ(launch.cluster[1], 2u);
  // Without the field: no clusters.
  llvm::Expected<Plan> plain = parse(kGood);
  ASSERT_TRUE(static_cast<bool>(plain));
  EXPECT_FALSE(plain->launches[0].clustered());
}

TEST_F(PlanTest, ReadsProgrammaticLaunches) {
  llvm::Expected<Plan> plan =
      parseWithGrid("\"grid\": [1, 1, 1], \"programmatic\": true");
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_TRUE(plan->launches[0].programmatic);
  // Without the field: a plain launch.
  llvm::Expected<Plan> plain = parse(kGood);
  ASSERT_TRUE(static_cast<bool>(plain));
  EXPECT_FALSE(plain->launches[0].programmatic);
}

TEST_F(PlanTest, ReadsF32PrecisionAndItsTolerance) {
  llvm::Expected<Plan> ieee = parse(kGood);
  ASSERT_TRUE(static_cast<bool>(ieee)) << llvm::toString(ieee.takeError());
  EXPECT_EQ(ieee->f32Precision, F32Precision::Ieee);
  for (auto [name, precision] :
       {std::pair{"tf32", F32Precision::Tf32},
        std::pair{"3xtf32", F32Precision::Tf32x3}}) {
    std::string text = kGood;
    std::string from = "\"target\": \"sm_90\"";
    text.replace(text.find(from), from.size(),
                 from + ", \"f32_precision\": \"" + name + "\"");
    llvm::Expected<Plan> plan = parse(text);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->f32Precision, precision) << name;
  }
  // Only a recorded TF32 or 3xTF32 request loosens f32's tolerance.
  EXPECT_EQ(precisionTolerance(F32Precision::Ieee), dtypeTolerance(DType::F32));
  EXPECT_GT(precisionTolerance(F32Precision::Tf32x3),
            dtypeTolerance(DType::F32));
  EXPECT_GT(precisionTolerance(F32Precision::Tf32),
            dtypeTolerance(DType::F32));
  EXPECT_LT(precisionTolerance(F32Precision::Tf32),
            dtypeTolerance(DType::BF16));
}

TEST_F(PlanTest, ReadsVerifyScaleOnInputs) {
  std::string text = kGood;
  std::string from = "\"shape\": [4, 8], \"dtype\": \"bf16\"";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), from + ", \"verify_scale\": 0.125");
  llvm::Expected<Plan> plan = parse(text);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->buffers[0].verifyScale, 0.125);
  EXPECT_EQ(plan->buffers[1].verifyScale, 1.0);
}

TEST_F(PlanTest, ReadsTensorMaps) {
  std::string text = kGood;
  std::string from = "{\"buffer\": \"arg0\"}";
  text.replace(text.find(from), from.size(),
               R"({"tensor_map": {"buffer": "arg0", "box": [4, 8],
                   "swizzle": "swizzle_128b", "l2promo": "l2promo_256b",
                   "oob": "zero", "interleave": "none"}})");
  llvm::Expected<Plan> plan = parse(text);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const PlanArg &arg = plan->launches[0].args[0];
  EXPECT_EQ(arg.kind, PlanArg::Kind::TensorMap);
  EXPECT_EQ(arg.buffer, "arg0");
  EXPECT_EQ(arg.tensorMap.box, (std::vector<int64_t>{4, 8}));
  // The CUDA driver's enum values.
  EXPECT_EQ(arg.tensorMap.swizzle, 3);
  EXPECT_EQ(arg.tensorMap.l2Promotion, 3);
  EXPECT_EQ(arg.tensorMap.oobFill, 0);
  EXPECT_EQ(arg.tensorMap.interleave, 0);

  auto expectError = [&](std::string map, llvm::StringRef message) {
    std::string bad = kGood;
    bad.replace(bad.find(from), from.size(), "{\"tensor_map\": " + map + "}");
    llvm::Expected<Plan> p = parse(bad);
    ASSERT_FALSE(static_cast<bool>(p)) << "accepted: " << map;
    std::string error = llvm::toString(p.takeError());
    EXPECT_NE(error.find(message), std::string::npos) << error;
  };
  expectError(R"({"buffer": "nope", "box": [4, 8]})", "unknown or missing");
  expectError(R"({"buffer": "arg0", "box": [4]})", "one size per buffer");
  expectError(R"({"buffer": "arg0", "box": [4, 512]})", "in [1, 256]");
  expectError(R"({"buffer": "arg0", "box": [4, 8], "swizzle": "swizzle_7b"})",
              "unknown swizzle");
}

TEST_F(PlanTest, ScratchMayCarryAShapeForTensorMaps) {
  std::string text = kGood;
  std::string from = R"({"name": "ws0", "kind": "scratch", "bytes": 64, "zero_init": true})";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               R"({"name": "ws0", "kind": "scratch", "bytes": 64,
                   "shape": [4, 8], "dtype": "f16"})");
  llvm::Expected<Plan> plan = parse(text);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const PlanBuffer *ws = plan->find("ws0");
  ASSERT_NE(ws, nullptr);
  EXPECT_EQ(ws->shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(ws->dtype, DType::F16);
  EXPECT_EQ(ws->bytes, 64u);

  std::string bad = kGood;
  bad.replace(bad.find(from), from.size(),
              R"({"name": "ws0", "kind": "scratch", "bytes": 64,
                  "shape": [4, 4], "dtype": "f16"})");
  llvm::Expected<Plan> wrong = parse(bad);
  ASSERT_FALSE(static_cast<bool>(wrong));
  EXPECT_NE(llvm::toString(wrong.takeError()).find("disagrees"),
            std::string::npos);
}

namespace {

/// kGood with M rows at run time: shapes, the grid, a scalar, the GEMM's m
/// and the flops are expressions of M.
std::string dynamicPlan() {
  std::string text = kGood;
  auto swap = [&](std::string from, std::string to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  swap("\"version\": 1,", "\"version\": 2, \"sizes\": {\"M\": {\"min\": 1, "
                          "\"max\": 4096}},");
  swap("\"flops\": 128", "\"flops\": \"2 * M * 2 * 8\"");
  swap("\"shape\": [4, 8]", "\"shape\": [\"M\", 8]");
  swap("\"shape\": [4, 2]", "\"shape\": [\"M\", 2]");
  swap("\"grid\": [1, 1, 1]", "\"grid\": [\"ceildiv(M, 64)\", 1, 1]");
  swap("{\"i64\": 8}", "{\"i64\": \"M * 8\"}");
  swap("\"m\": 4", "\"m\": \"M\"");
  return text;
}

} // namespace

TEST_F(PlanTest, ReadsAVersion2PlanForItsSizes) {
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(dynamicPlan());
  ASSERT_TRUE(static_cast<bool>(doc));
  for (int64_t m : {1, 7, 64, 129, 4096}) {
    llvm::Expected<Plan> plan = parsePlan(*doc, planPath, {{"M", m}});
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->find("arg0")->shape, (std::vector<int64_t>{m, 8}));
    EXPECT_EQ(plan->find("res0")->bytes, size_t(m * 2 * 4));
    EXPECT_EQ(plan->launches[0].grid[0], unsigned((m + 63) / 64));
    EXPECT_EQ(plan->launches[0].args[3].intValue, m * 8);
    EXPECT_EQ(plan->gemm->m, m);
    EXPECT_EQ(plan->flops, 32.0 * m);
    EXPECT_EQ(plan->sizes.at("M"), m);
  }
}

TEST_F(PlanTest, RefusesVersion2PlansWithBadSizes) {
  auto expectError = [&](const SizeBindings &sizes, llvm::StringRef message,
                         llvm::StringRef text = "") {
    this->expectError(text.empty() ? dynamicPlan() : text.str(), sizes,
                      message);
  };
  expectError({},
              "has the run-time size 'M' (1..4096); give it with --dim M=N");
  expectError({{"M", 0}}, "--dim M=0 is outside the plan's range 1..4096");
  expectError({{"M", 4097}}, "outside the plan's range");
  expectError({{"M", 4}, {"N", 2}}, "no run-time size 'N'");
  // Version 1 plans take no sizes.
  expectError({{"M", 4}}, "the plan has no run-time sizes", kGood);
  // A bad expression is refused with the entry it stands in.
  auto withGrid = [&](std::string grid) {
    std::string text = dynamicPlan();
    std::string from = "\"ceildiv(M, 64)\"";
    text.replace(text.find(from), from.size(), grid);
    return text;
  };
  expectError({{"M", 4}},
              "launches[0].grid[0]: in 'ceildiv(Q, 64)' at column "
              "9: unknown size 'Q'",
              withGrid("\"ceildiv(Q, 64)\""));
  expectError({{"M", 4}},
              "launches[0].grid[0]: in 'M / 0' at column 6: "
              "division by zero",
              withGrid("\"M / 0\""));
  expectError({{"M", 4}},
              "launches[0].grid[0]: in 'M +' at column 4: "
              "expected a number",
              withGrid("\"M +\""));
  // An expression that evaluates out of range is refused as a number would be.
  expectError({{"M", 4}}, "\"grid\" entries must be positive",
              withGrid("\"M - 4\""));
}

namespace {

/// dynamicPlan() whose one launch is the kernel of two buckets of M: the
/// first for M <= 16, the second for the rest, as a host choice among
/// bucket dispatches compiles.
std::string bucketedPlan(std::string firstWhen = "{\"M\": {\"min\": 1, "
                                                 "\"max\": 16}}") {
  std::string text = dynamicPlan();
  size_t start = text.find("{\"ptx\"");
  size_t end = text.find("]}]", start) + 2;
  std::string launch = text.substr(start, end - start);
  std::string second = launch;
  second.replace(second.find("\"block\": [32"), 12, "\"block\": [64");
  text.replace(start, end - start,
               launch.substr(0, launch.size() - 1) + ", \"when\": " +
                   firstWhen + "}, " + second.substr(0, second.size() - 1) +
                   ", \"when\": {\"M\": {\"min\": 17, \"max\": 4096}}}");
  return text;
}

} // namespace

TEST_F(PlanTest, RunsOnlyTheLaunchesOfTheBoundSizesBucket) {
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(bucketedPlan());
  ASSERT_TRUE(static_cast<bool>(doc));
  for (auto [m, block] :
       {std::pair<int64_t, unsigned>{1, 32}, {16, 32}, {17, 64}, {4096, 64}}) {
    llvm::Expected<Plan> plan = parsePlan(*doc, planPath, {{"M", m}});
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    ASSERT_EQ(plan->launches.size(), 1u) << "M = " << m;
    EXPECT_EQ(plan->launches[0].block[0], block) << "M = " << m;
  }
}

TEST_F(PlanTest, AllocatesOnlyTheBoundBucketsScratch) {
  // The second bucket's launch takes the scratch buffer (a split-K's
  // partials); the first bucket's does not.
  std::string text = bucketedPlan();
  size_t second = text.find("\"block\": [64");
  std::string from = "{\"buffer\": \"arg0\"}";
  text.replace(text.find(from, second), from.size(), "{\"buffer\": \"ws0\"}");
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(doc));
  for (auto [m, allocated] :
       {std::pair<int64_t, bool>{16, false}, {17, true}}) {
    llvm::Expected<Plan> plan = parsePlan(*doc, planPath, {{"M", m}});
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->find("ws0") != nullptr, allocated) << "M = " << m;
    EXPECT_NE(plan->find("arg0"), nullptr) << "M = " << m;
  }
}

TEST_F(PlanTest, DerivesSizesFromTheGivenOnes) {
  // A batch folded into M: the plan takes B and S, its buckets choose on
  // M = B * S.
  std::string text = bucketedPlan();
  auto swap = [&](std::string from, std::string to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  swap("\"sizes\": {\"M\": {\"min\": 1, \"max\": 4096}},",
       "\"sizes\": {\"B\": {\"min\": 1, \"max\": 64}, \"S\": {\"min\": 1, "
       "\"max\": 64}}, \"derived\": {\"M\": \"B * S\"},");
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(doc));
  for (auto [b, s, block] : {std::tuple<int64_t, int64_t, unsigned>{1, 16, 32},
                             {4, 4, 32},
                             {3, 6, 64},
                             {64, 64, 64}}) {
    llvm::Expected<Plan> plan = parsePlan(*doc, planPath, {{"B", b}, {"S", s}});
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->sizes.at("M"), b * s);
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_EQ(plan->launches[0].block[0], block) << b << " x " << s;
  }
  std::string unknown = text;
  unknown.replace(unknown.find("B * S"), 5, "B * Q");
  expectError(unknown, {{"B", 2}, {"S", 2}},
              "derived.M: in 'B * Q' at column 5: unknown size 'Q'");
  std::string twice = text;
  twice.replace(twice.find("\"M\": \"B * S\""), 12, "\"S\": \"B * 2\"");
  expectError(twice, {{"B", 2}, {"S", 2}},
              "derived.S: 'S' is already a given run-time size");
  expectError(text, {{"M", 4}},
              "the plan has the run-time size 'B' (1..64); give it with "
              "--dim B=N");
  // A reference plan is read with its main plan's sizes, the derived ones
  // included: they must agree.
  EXPECT_TRUE(static_cast<bool>(
      parsePlan(*doc, planPath, {{"B", 3}, {"S", 6}, {"M", 18}})));
  expectError(text, {{"B", 3}, {"S", 6}, {"M", 17}},
              "--dim M=17 disagrees with the plan's M = B * S = 18");
}

TEST_F(PlanTest, RefusesBadWhens) {
  expectError(bucketedPlan("{\"N\": {\"min\": 1, \"max\": 16}}"), {{"M", 4}},
              "launches[0].when.N: the plan has no run-time size 'N'");
  expectError(bucketedPlan("{\"M\": {\"min\": 16, \"max\": 1}}"), {{"M", 4}},
              "launches[0].when.M: needs integers \"min\" <= \"max\"");
  expectError(bucketedPlan("{\"M\": [1, 16]}"), {{"M", 4}},
              "launches[0].when.M: needs integers");
  // Buckets 1..8 and 17..4096 leave M = 12 without a launch.
  std::string gap = bucketedPlan("{\"M\": {\"min\": 1, \"max\": 8}}");
  expectError(gap, {{"M", 12}}, "no launch runs for the sizes given");
  // A version 1 plan has no sizes to condition on.
  std::string v1 = kGood;
  v1.replace(v1.find("\"args\""), 6,
             "\"when\": {\"M\": {\"min\": 1, \"max\": 2}}, \"args\"");
  expectError(v1, {}, "launches[0]: \"when\" needs a version 2 plan");
}
