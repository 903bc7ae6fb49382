//===- Search.cpp - The search over candidates for one dispatch -----------===//
//
// The built-in schedule and the tuning database's winner, the built-in
// scheduler's variants raced on the GPU, and the LLM rounds.
//
//===----------------------------------------------------------------------===//

#include "Tuner.h"

#include "vibegemm/Runtime/PlanRunner.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"
#include "vibegemm/Target/CostModel.h"
#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;
namespace json = llvm::json;

/// The built-in scheduler's schedule for `dispatch`, as
/// vibegemm-builtin-schedule wrote it into `schedules`: the one place the
/// tuner takes the built-in schedule's text.
static std::string builtinSchedule(func::FuncOp dispatch, ModuleOp schedules) {
  return printSchedule(dispatch, schedules);
}

/// Candidate 0, the built-in schedule, and candidate 1, the tuning
/// database's winner from an earlier run where it differs.
void Tuner::evaluateBuiltinAndStored(ModuleOp module, func::FuncOp dispatch,
                                     DispatchRecord &record,
                                     ModuleOp schedules) {
  record.tiling = vibegemm::chooseSimtTiling(record.problem, *info);
  record.gemm = describeGemm(dispatch, record.problem, record.plain);
  std::string builtin = builtinSchedule(dispatch, schedules);
  record.scripts.push_back(builtin);
  record.candidates.push_back(
      evaluateScript(module, dispatch, record, builtin,
                     Candidate{/*index=*/0, /*source=*/"builtin"}));
  // A schedule that won an earlier run competes again.
  if (std::optional<StoredWinner> stored =
          tuningDB
              ? tuningDB->winner(record.signature, target, LLVM_VERSION_STRING)
              : std::nullopt;
      stored && stored->script != builtin) {
    record.scripts.push_back(stored->script);
    record.candidates.push_back(
        evaluateScript(module, dispatch, record, stored->script,
                       Candidate{/*index=*/1, /*source=*/"db"}));
    if (rankOf(record.candidates[1]) < rankOf(record.candidates[0]))
      record.winner = 1;
  }
}

/// Adds the built-in scheduler's variants of the dispatch's tiling as
/// candidates ("builtin-variant"); a faster verified one wins.
LogicalResult Tuner::raceAlternatives(ModuleOp module, func::FuncOp dispatch,
                                      DispatchRecord &record) {
  for (const vibegemm::TilingVariant &variant :
       vibegemm::alternativeTilings(record.problem, record.tiling, *info)) {
    FailureOr<std::string> script = vibegemm::writeSimtSchedule(
        dispatch, record.problem, variant.tiling, dispatch.getSymName());
    if (failed(script))
      return failure();
    // The tuning database's winner may be this variant already.
    if (llvm::is_contained(record.scripts, *script))
      continue;
    int64_t index = record.candidates.size();
    record.scripts.push_back(*script);
    // A variant measured on this device before is not run again: a
    // kernel that failed (a hang would cost the measure timeout on every
    // compile), or one that ran and is not the database's winner, which
    // beat it (three races per dispatch would slow every compile).
    namespace rt = vibegemm::runtime;
    llvm::StringRef measuredStatuses[] = {rt::kStatusFault, rt::kStatusTimeout,
                                          rt::kStatusWrongResult,
                                          rt::kStatusOk};
    std::string hash = hashText(*script);
    if (std::optional<vibegemm::TuningDB::PastResult> past =
            tuningDB ? tuningDB->pastResult(
                           record.signature, target, LLVM_VERSION_STRING,
                           measurement.device, hash, measuredStatuses)
                     : std::nullopt) {
      std::string why =
          past->status == rt::kStatusOk
              ? llvm::formatv("not run: {0:F4} ms on {1} in tuning run {2}, "
                              "not the tuning database's winner",
                              past->timeMs.value_or(0), measurement.device,
                              past->runId)
                    .str()
              : llvm::formatv("not run: {0} on {1} in tuning run {2} ({3})",
                              past->status, measurement.device, past->runId,
                              past->diagnostic)
                    .str();
      Candidate skipped{index, "builtin-variant"};
      skipped.variant = variant.name;
      skipped.status = CandidateStatus::Skipped;
      skipped.scriptHash = hash;
      skipped.diagnostic = why;
      record.candidates.push_back(std::move(skipped));
      continue;
    }
    Candidate candidate{index, "builtin-variant"};
    candidate.variant = variant.name;
    record.candidates.push_back(evaluateScript(module, dispatch, record,
                                               *script, std::move(candidate)));
    if (rankOf(record.candidates.back()) <
        rankOf(record.candidates[record.winner]))
      record.winner = index;
  }
  return success();
}

/// Shows progress on a terminal; stays quiet otherwise.
void Tuner::progress(const DispatchRecord &r, unsigned round,
                     unsigned candidate, StringRef status) {
  if (!llvm::errs().is_displayed())
    return;
  const Candidate &best = r.candidates[r.winner];
  llvm::errs() << llvm::formatv(
      "\r\x1b[2K[{0}] round {1}/{2}, candidate {3}/{4}: {5}; best: #{6} {7}",
      r.name, round, rounds, candidate, candidates, status, r.winner,
      formatMs(best));
}

/// The LLM rounds for one dispatch. Fails only when the endpoint itself
/// is unusable; every bad reply is a candidate with a status.
LogicalResult Tuner::tuneWithLLM(ModuleOp module, func::FuncOp dispatch,
                                 DispatchRecord &record) {
  std::string ir;
  llvm::raw_string_ostream irStream(ir);
  // The prompt states the target once, in its target facts.
  Attribute targetAttr = dispatch->removeAttr(kTargetAttr);
  dispatch.print(irStream);
  if (targetAttr)
    dispatch->setAttr(kTargetAttr, targetAttr);
  std::map<std::string, std::string> values = {
      {"DISPATCH_NAME", record.name},
      {"SEQUENCE_NAME", record.name},
      {"DISPATCH_IR", ir},
      {"PROBLEM", problemText(record)},
      {"TARGET_FACTS", targetText()},
      {"ROOFLINE", llvm::formatv("{0:f4} ms (FLOPs over peak or bytes over "
                                 "bandwidth, whichever is larger)",
                                 rooflineMs(record.problem, *info))
                       .str()},
      {"ROUNDS", std::to_string(rounds)},
      {"CANDIDATES", std::to_string(candidates)},
      {"ALLOWED_OPS", templates.allowedOps}};
  std::string system = fillTemplate(templates.system, values);
  if (!StringRef(templates.system).contains("{{ALLOWED_OPS}}"))
    system += "\n\n" + templates.allowedOps;

  for (unsigned round = 1; round <= rounds; ++round) {
    bool improved = false, roundHadValid = false;
    for (unsigned c = 1; c <= candidates; ++c) {
      const Candidate &best = record.candidates[record.winner];
      values["ROUND"] = std::to_string(round);
      values["CANDIDATE"] = std::to_string(c);
      values["BEST_SCHEDULE"] = record.scripts[record.winner];
      values["BEST_SUMMARY"] =
          llvm::formatv("candidate {0} ({1}), {2}", record.winner, best.source,
                        formatMs(best));
      values["HISTORY"] = historyText(record);
      std::vector<llm::ChatMessage> messages = {
          {"system", system}, {"user", fillTemplate(templates.round, values)}};
      std::string key = llm::ResponseCache::key(client->model(), messages);
      llm::ChatResult reply;
      bool cached = false;
      if (std::optional<llm::ChatResult> hit = cache->lookup(key)) {
        reply = std::move(*hit);
        cached = true;
        ++stats.cacheHits;
      } else {
        progress(record, round, c, "asking the LLM");
        reply = client->complete(messages);
        stats.requests += reply.attempts;
        if (reply.ok) {
          ++stats.succeeded;
          stats.promptTokens += reply.usage.promptTokens;
          stats.completionTokens += reply.usage.completionTokens;
          cache->store(key, reply);
        } else {
          ++stats.failed;
        }
      }
      if (!reply.ok && reply.endpointUnusable && stats.succeeded == 0 &&
          stats.cacheHits == 0) {
        if (llvm::errs().is_displayed())
          llvm::errs() << "\n";
        return emitError(dispatch.getLoc(), "LLM endpoint ")
               << client->endpoint()
               << " rejected the request: " << reply.error;
      }
      Candidate candidate{static_cast<int64_t>(record.candidates.size()), "llm",
                          round};
      candidate.cached = cached;
      candidate.promptTokens = reply.usage.promptTokens;
      candidate.completionTokens = reply.usage.completionTokens;
      std::optional<std::string> script;
      if (reply.ok)
        script = llm::extractMlirBlock(reply.content);
      if (!reply.ok) {
        candidate.status = CandidateStatus::LLMError;
        candidate.diagnostic = reply.error;
      } else if (!script) {
        candidate.status = CandidateStatus::ParseError;
        candidate.diagnostic = "the reply has no ```mlir block";
      } else {
        candidate = evaluateScript(module, dispatch, record, *script,
                                   std::move(candidate));
      }
      progress(record, round, c, stringifyCandidateStatus(candidate.status));
      record.scripts.push_back(script.value_or(""));
      double rank = rankOf(candidate);
      roundHadValid |= std::isfinite(rank);
      record.candidates.push_back(std::move(candidate));
      if (rank < rankOf(record.candidates[record.winner])) {
        record.winner = record.candidates.size() - 1;
        // Only a measured gain counts: an estimate cannot show one.
        improved |= record.candidates.back().timeMs.has_value();
      }
    }
    // Rounds stopped improving: stop. A round with no valid candidate
    // at all goes on, so the next prompt can show what failed.
    if (!improved && roundHadValid)
      break;
  }
  if (llvm::errs().is_displayed())
    llvm::errs() << "\n";
  if (stats.succeeded == 0 && stats.cacheHits == 0 && stats.failed > 0) {
    const Candidate &last = record.candidates.back();
    return emitError(dispatch.getLoc(), "LLM endpoint ")
           << client->endpoint() << " gave no usable reply in "
           << stats.requests << " requests; the last: " << last.diagnostic;
  }
  return success();
}
