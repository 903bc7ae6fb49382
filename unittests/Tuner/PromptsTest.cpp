//===- PromptsTest.cpp - Tests of prompt templates and the allowlist ------===//

#include "vibegemm/Tuner/Prompts.h"
#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/Target/TargetInfo.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm;

TEST(Prompts, FillsKnownPlaceholdersAndKeepsOthers) {
  EXPECT_EQ(fillTemplate("a {{X}} b {{Y}} {{X}}", {{"X", "1"}}),
            "a 1 b {{Y}} 1");
  EXPECT_EQ(fillTemplate("no close {{X", {{"X", "1"}}), "no close {{X");
}

TEST(Prompts, BuiltInTemplatesCarryThePlaceholders) {
  llvm::Expected<PromptTemplates> t = loadPromptTemplates("");
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  for (const char *key :
       {"{{DISPATCH_IR}}", "{{BEST_SCHEDULE}}", "{{HISTORY}}", "{{PROBLEM}}",
        "{{SEQUENCE_NAME}}", "{{OP_REFERENCE}}"})
    EXPECT_NE(t->round.find(key), std::string::npos) << key;
  for (const char *key : {"{{TARGET_FACTS}}", "{{ALLOWED_OPS}}"})
    EXPECT_NE(t->system.find(key), std::string::npos) << key;
  EXPECT_NE(t->round.find("```mlir\n{{BEST_SCHEDULE}}"), std::string::npos);
  llvm::StringSet<> allow = parseAllowlist(t->allowlist);
  EXPECT_TRUE(allow.contains("transform.structured.tile_using_forall"));
  EXPECT_TRUE(allow.contains("transform.named_sequence"));
  EXPECT_FALSE(allow.contains("transform.apply_registered_pass"));
  EXPECT_FALSE(allow.contains("transform.print"));
}

TEST(Prompts, MissingDirectoryIsAnError) {
  llvm::Expected<PromptTemplates> t = loadPromptTemplates("/nonexistent");
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_NE(llvm::toString(t.takeError()).find("cannot read prompt file"),
            std::string::npos);
}

TEST(Prompts, AllowlistIgnoresCommentsAndBlanks) {
  llvm::StringSet<> s = parseAllowlist("# c\n a.b  # x\n\nc.d\n");
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.contains("a.b"));
  EXPECT_TRUE(s.contains("c.d"));
}

namespace {
/// The built-in templates; fails the test when they do not load.
PromptTemplates builtInTemplates() {
  llvm::Expected<PromptTemplates> t = loadPromptTemplates("");
  EXPECT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  return t ? *t : PromptTemplates();
}

bool contains(llvm::StringRef text, llvm::StringRef part) {
  return text.contains(part);
}
} // namespace

TEST(Prompts, SystemOpReferenceKeepsWhatTheTargetCanLower) {
  PromptTemplates t = builtInTemplates();
  const TargetInfo *sm80 = lookupTarget("sm_80");
  const TargetInfo *sm90a = lookupTarget("sm_90a");
  ASSERT_TRUE(sm80 && sm90a);
  std::string ampere = systemOpReference(t.allowedOps, *sm80);
  std::string hopper = systemOpReference(t.allowedOps, *sm90a);
  // wgmma only where the target has it; the other kernels everywhere.
  EXPECT_FALSE(contains(ampere, "gemm_to_wgmma %"));
  EXPECT_TRUE(contains(hopper, "transform.vibegemm.gemm_to_wgmma %mm"));
  for (const std::string &ref : {ampere, hopper}) {
    EXPECT_TRUE(contains(ref, "transform.vibegemm.gemm_to_mma_sync %mm"));
    EXPECT_TRUE(contains(ref, "transform.vibegemm.gemm_to_ffma %mm"));
    EXPECT_TRUE(contains(ref, "transform.structured.tile_using_forall %mm"));
    // Listed by name only, cut, or left out.
    EXPECT_TRUE(contains(ref, "`transform.apply_patterns.vector.`"));
    EXPECT_FALSE(contains(ref, "transform.structured.decompose %op"));
    EXPECT_FALSE(contains(ref, "nvgpu"));
    EXPECT_FALSE(contains(ref, "docs/benchmarks"));
    // No markup reaches the prompt.
    EXPECT_FALSE(contains(ref, "<!--"));
    EXPECT_LT(ref.size(), t.allowedOps.size() / 4);
  }
}

TEST(Prompts, UserOpReferenceBringsTheSectionsFailuresName) {
  PromptTemplates t = builtInTemplates();
  const TargetInfo *sm80 = lookupTarget("sm_80");
  const TargetInfo *sm90a = lookupTarget("sm_90a");
  ASSERT_TRUE(sm80 && sm90a);
  EXPECT_EQ(userOpReference(t.allowedOps, *sm90a, {}), "");
  // A diagnostic naming no op: nothing to add.
  EXPECT_EQ(userOpReference(t.allowedOps, *sm90a, {"script:3:5: expected ':'"}),
            "");
  std::string pad = userOpReference(
      t.allowedOps, *sm90a,
      {"script:9:3: 'transform.structured.pad' op expects padding values"});
  EXPECT_TRUE(contains(pad, "### `transform.structured.pad`"));
  EXPECT_TRUE(contains(pad, "copy_back_op")); // From past the cut.
  EXPECT_FALSE(contains(pad, "<!--"));
  // A prefix of a longer name does not count.
  EXPECT_FALSE(contains(pad, "tile_using_for`"));
  std::string forall =
      userOpReference(t.allowedOps, *sm90a,
                      {"'transform.structured.tile_using_forall' op failed"});
  EXPECT_FALSE(contains(forall, "### `transform.structured.tile_using_for`"));
  // An op listed by name only comes whole.
  EXPECT_TRUE(contains(userOpReference(t.allowedOps, *sm90a,
                                       {"transform.loop.pipeline failed."}),
                       "read_latency"));
  // An op the target cannot lower says so instead.
  std::string wgmma = userOpReference(
      t.allowedOps, *sm80, {"'transform.vibegemm.gemm_to_wgmma' op failed"});
  EXPECT_TRUE(contains(wgmma, "Not available on target sm_80"));
  EXPECT_FALSE(contains(wgmma, "consumers"));
}

TEST(Prompts, SystemPromptIsTheSameForEveryDispatch) {
  PromptTemplates t = builtInTemplates();
  const TargetInfo *target = lookupTarget("sm_90a");
  ASSERT_TRUE(target);
  // The run-wide values only: a dispatch-specific placeholder would be
  // left unfilled here.
  std::map<std::string, std::string> runWide = {
      {"TARGET_FACTS", "sm_90a facts"},
      {"ALLOWED_OPS", systemOpReference(t.allowedOps, *target)},
      {"ROUNDS", "3"},
      {"CANDIDATES", "4"}};
  std::string system = fillTemplate(t.system, runWide);
  EXPECT_EQ(system.find("{{"), std::string::npos)
      << system.substr(system.find("{{"), 40);
  // Two dispatches fill the same map; their system prompts are one.
  std::map<std::string, std::string> other = runWide;
  other["DISPATCH_NAME"] = "gemm_d1";
  other["SEQUENCE_NAME"] = "gemm_d1";
  EXPECT_EQ(fillTemplate(t.system, other), system);
  // The round template carries the per-request reference.
  EXPECT_NE(t.round.find("{{OP_REFERENCE}}"), std::string::npos);
}

TEST(Prompts, TriedScriptsShowTheirChoicesAndTheBlamedLine) {
  const char *script =
      "transform.named_sequence @gemm_d0(%func: !transform.any_op "
      "{transform.consumed}) {\n"
      "  %0 = transform.tune.knob<\"block_m\"> = 128 : i64 from options = "
      "[64, 128] -> !transform.param<i64>\n"
      "  %r = transform.structured.match attributes{vibegemm.role = "
      "\"root\"} in %func : (!transform.any_op) -> !transform.any_op\n"
      "  %t, %f = transform.structured.tile_using_forall %r tile_sizes [%0, "
      "64] : (!transform.any_op, !transform.param<i64>) -> "
      "(!transform.any_op, !transform.any_op)\n"
      "  %k = transform.vibegemm.gemm_to_ffma %t {block_k = 32 : i64} : "
      "(!transform.any_op) -> !transform.any_op\n"
      "  transform.yield\n}";
  EXPECT_EQ(scriptChoiceLines(script, ""),
            "   2: %0 = knob \"block_m\" = 128\n"
            "   4: transform.structured.tile_using_forall %r tile_sizes "
            "[%0, 64]\n"
            "   5: transform.vibegemm.gemm_to_ffma %t {block_k = 32 : i64}\n");
  // The line a diagnostic blames comes whole, even when it holds no choice.
  std::string blamed = scriptChoiceLines(
      script, "script:3:8: 'transform.structured.match' op failed");
  EXPECT_NE(blamed.find("   3! %r = transform.structured.match attributes{"
                        "vibegemm.role = \"root\"} in %func : "
                        "(!transform.any_op) -> !transform.any_op\n"),
            std::string::npos)
      << blamed;
}
