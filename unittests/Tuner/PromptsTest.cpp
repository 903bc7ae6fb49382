//===- PromptsTest.cpp - Tests of prompt templates and the allowlist ------===//

#include "vibegemm/Tuner/Prompts.h"
#include "vibegemm/Scheduler/ScriptCheck.h"

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
  for (const char *key : {"{{DISPATCH_IR}}", "{{BEST_SCHEDULE}}", "{{HISTORY}}",
                          "{{PROBLEM}}", "{{TARGET_FACTS}}"})
    EXPECT_NE(t->round.find(key), std::string::npos) << key;
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
