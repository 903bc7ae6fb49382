//===- CandidateTest.cpp - Tests of the tuner's candidate record ----------===//

#include "vibegemm/Tuner/Candidate.h"

#include "gtest/gtest.h"

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;

TEST(Candidate, StatusesAreSpelledAsInReportJson) {
  std::pair<CandidateStatus, const char *> spelled[] = {
      {CandidateStatus::Ok, "ok"},
      {CandidateStatus::ParseError, "parse-error"},
      {CandidateStatus::RejectedOp, "rejected-op"},
      {CandidateStatus::RejectedValue, "rejected-value"},
      {CandidateStatus::ApplyError, "apply-error"},
      {CandidateStatus::LoweringError, "lowering-error"},
      {CandidateStatus::PtxasError, "ptxas-error"},
      {CandidateStatus::LLMError, "llm-error"},
      {CandidateStatus::Skipped, "skipped"},
      {CandidateStatus::WrongResult, "wrong-result"},
      {CandidateStatus::Fault, "fault"},
      {CandidateStatus::Timeout, "timeout"}};
  for (auto [status, name] : spelled) {
    EXPECT_EQ(stringifyCandidateStatus(status), name);
    EXPECT_EQ(parseCandidateStatus(name), status) << name;
  }
  EXPECT_EQ(parseCandidateStatus("load-error"), std::nullopt);
}

TEST(Candidate, UnevaluatedCandidatesLeaveOutTimes) {
  Candidate c{3, "builtin-variant"};
  c.variant = "wide";
  c.status = CandidateStatus::Skipped;
  c.scriptHash = "00ff";
  c.diagnostic = "not run";
  llvm::json::Object o = c.toJson();
  EXPECT_EQ(o.size(), 7u);
  EXPECT_EQ(o.getString("status"), "skipped");
  EXPECT_EQ(o.getInteger("index"), 3);
  EXPECT_EQ(o.get("time_ms"), nullptr);
  CandidateRow row = c.toRow("script");
  EXPECT_EQ(row.status, "skipped");
  EXPECT_EQ(row.scriptHash, "00ff");
  EXPECT_EQ(row.script, "script");
}

TEST(Candidate, EvaluatedCandidatesReportNullTimesAndResources) {
  Candidate c{0, "builtin"};
  c.evaluated = true;
  c.timing = "estimated";
  c.resources = llvm::json::Object{{"registers", 40}, {"spill_bytes", 0}};
  c.estimatedMs = 1.5;
  llvm::json::Object o = c.toJson();
  ASSERT_NE(o.get("time_ms"), nullptr);
  EXPECT_EQ(*o.get("time_ms"), llvm::json::Value(nullptr));
  EXPECT_EQ(o.getInteger("registers"), 40);
  EXPECT_EQ(o.getNumber("estimated_ms"), 1.5);
  EXPECT_EQ(c.toRow("").registers, 40);
}
