//===- Search.cpp - The search over candidates for one dispatch -----------===//
//
// The built-in schedule and the tuning database's winner, the built-in
// scheduler's variants raced on the GPU, and the LLM rounds. Everything
// that reads the dispatch's IR or the database happens first, on the
// pass's thread (prepareDispatch); then each dispatch is tuned on a thread
// of its own (tuneDispatch), its candidates evaluated concurrently. The
// results are ranked in candidate order, ties to the lower index, so the
// same replies give the same winner however the threads interleave.
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

/// The index of the best-ranked candidate that `eligible` accepts: the
/// first of the lowest rank. Candidate 0, the built-in schedule, stands
/// when none beats it.
static size_t bestIndex(
    const std::vector<Candidate> &candidates,
    llvm::function_ref<bool(const Candidate &)> eligible =
        [](const Candidate &) { return true; }) {
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i)
    if (eligible(candidates[i]) &&
        rankOf(candidates[i]) < rankOf(candidates[best]))
      best = i;
  return best;
}

/// Candidate 0, the built-in schedule; candidate 1, the tuning database's
/// winner from an earlier run where it differs; then, where the GPU times
/// them, the built-in scheduler's variants of its choice. Also what the
/// threads need of the dispatch, as text.
LogicalResult Tuner::prepareDispatch(func::FuncOp dispatch,
                                     DispatchRecord &record,
                                     ModuleOp schedules) {
  record.dispatch = dispatch;
  record.tiling = vibegemm::chooseSimtTiling(record.problem, *info);
  record.gemm = describeGemm(dispatch, record.problem, record.plain);
  if (auto allowed = dispatch->getAttrOfType<StringAttr>(kF32PrecisionAttr))
    record.allowedPrecision = allowed.str();
  {
    OwningOpRef<ModuleOp> work = ModuleOp::create(dispatch.getLoc());
    OpBuilder builder(dispatch.getContext());
    builder.setInsertionPointToEnd(work->getBody());
    builder.clone(*dispatch.getOperation());
    llvm::raw_string_ostream os(record.workText);
    work->print(os, OpPrintingFlags().enableDebugInfo());
  }
  {
    // The prompt states the target once, in its target facts.
    Attribute targetAttr = dispatch->removeAttr(kTargetAttr);
    llvm::raw_string_ostream os(record.promptIR);
    dispatch.print(os);
    if (targetAttr)
      dispatch->setAttr(kTargetAttr, targetAttr);
  }

  std::string builtin = builtinSchedule(dispatch, schedules);
  record.pending.push_back(
      {Candidate{/*index=*/0, /*source=*/"builtin"}, builtin});
  // A schedule that won an earlier run competes again.
  if (std::optional<StoredWinner> stored =
          tuningDB
              ? tuningDB->winner(record.signature, target, LLVM_VERSION_STRING,
                                 measurement.enabled ? measurement.device : "")
              : std::nullopt;
      stored && stored->script != builtin)
    record.pending.push_back(
        {Candidate{/*index=*/1, /*source=*/"db"}, stored->script});
  // Built-in variants race the built-in schedule only where the GPU
  // times them: static estimates cannot tell them apart.
  if (!measurement.enabled)
    return success();
  for (const vibegemm::TilingVariant &variant :
       vibegemm::alternativeTilings(record.problem, record.tiling, *info)) {
    FailureOr<std::string> script = vibegemm::writeSimtSchedule(
        dispatch, record.problem, variant.tiling, dispatch.getSymName());
    if (failed(script))
      return failure();
    // The tuning database's winner may be this variant already.
    if (llvm::any_of(record.pending, [&](const PendingCandidate &p) {
          return p.script == *script;
        }))
      continue;
    Candidate candidate{static_cast<int64_t>(record.pending.size()),
                        "builtin-variant"};
    candidate.variant = variant.name;
    // A variant measured on this device before is not run again: a
    // kernel that failed (a hang would cost the measure timeout on every
    // compile), or one that ran and is not the database's winner, which
    // beat it (three races per dispatch would slow every compile).
    namespace rt = vibegemm::runtime;
    llvm::StringRef measuredStatuses[] = {rt::kStatusFault, rt::kStatusTimeout,
                                          rt::kStatusWrongResult,
                                          rt::kStatusOk};
    std::string hash = hashScript(*registry, *script);
    std::optional<vibegemm::TuningDB::PastResult> past =
        tuningDB ? tuningDB->pastResult(record.signature, target,
                                        LLVM_VERSION_STRING, measurement.device,
                                        hash, measuredStatuses)
                 : std::nullopt;
    if (!past) {
      record.pending.push_back({std::move(candidate), *script});
      continue;
    }
    candidate.status = CandidateStatus::Skipped;
    candidate.scriptHash = hash;
    candidate.diagnostic =
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
    record.pending.push_back({std::move(candidate), *script, false});
  }
  return success();
}

/// Evaluates the known candidates together, then runs the LLM rounds.
void Tuner::tuneDispatch(DispatchRecord &record) {
  std::vector<Candidate> results(record.pending.size());
  forEachConcurrently(record.pending.size(), [&](size_t i) {
    PendingCandidate &p = record.pending[i];
    results[i] = p.evaluate ? evaluateScript(record, p.script, p.candidate)
                            : p.candidate;
  });
  for (auto [i, p] : llvm::enumerate(record.pending)) {
    record.scripts.push_back(p.script);
    record.candidates.push_back(std::move(results[i]));
  }
  record.winner = bestIndex(record.candidates);
  checkpoint(record);
  if (!client)
    return;
  tuneWithLLM(record);
  // An LLM script ships only after a GPU ran it against the reference:
  // without one, the winner from before the LLM rounds stays.
  if (measurement.enabled)
    return;
  size_t beforeLLM = bestIndex(
      record.candidates, [](const Candidate &c) { return c.source != "llm"; });
  if (record.winner != beforeLLM) {
    record.unverifiedBest = record.winner;
    record.winner = beforeLLM;
  }
}

/// Shows progress on a terminal, one line per event; quiet otherwise.
void Tuner::progress(const DispatchRecord &r, StringRef what) {
  if (!llvm::errs().is_displayed())
    return;
  std::lock_guard<std::mutex> lock(progressMutex);
  llvm::errs() << "vibegemm: [" << r.name << "] " << what << "\n";
}

/// One LLM request, answered from the cache where it can be.
llm::ChatResult Tuner::ask(const std::vector<llm::ChatMessage> &messages,
                           bool &cached) {
  std::string key = llm::ResponseCache::key(client->model(), messages);
  if (std::optional<llm::ChatResult> hit = cache->lookup(key)) {
    cached = true;
    std::lock_guard<std::mutex> lock(statsMutex);
    ++stats.cacheHits;
    return std::move(*hit);
  }
  cached = false;
  llm::ChatResult reply = client->complete(messages);
  if (reply.ok)
    cache->store(key, reply);
  std::lock_guard<std::mutex> lock(statsMutex);
  stats.requests += reply.attempts;
  if (reply.ok) {
    ++stats.succeeded;
    stats.promptTokens += reply.usage.promptTokens;
    stats.cachedTokens += reply.usage.cachedTokens;
    stats.completionTokens += reply.usage.completionTokens;
  } else {
    ++stats.failed;
  }
  return reply;
}

/// The LLM rounds for one dispatch. A round's requests go out together,
/// `llm-concurrency` at a time; each candidate follows the direction for
/// its number and sees the rounds before. Every bad reply is a candidate
/// with a status; only an unusable endpoint stops the search (`fatal`).
void Tuner::tuneWithLLM(DispatchRecord &record) {
  std::map<std::string, std::string> values = {
      {"DISPATCH_NAME", record.name},
      {"SEQUENCE_NAME", record.name},
      {"DISPATCH_IR", record.promptIR},
      {"PROBLEM", problemText(record)},
      {"ROOFLINE", llvm::formatv("{0:f4} ms (FLOPs over peak or bytes over "
                                 "bandwidth, whichever is larger)",
                                 rooflineMs(record.problem, *info))
                       .str()},
      {"ROUNDS", std::to_string(rounds)},
      {"CANDIDATES", std::to_string(candidates)}};
  Semaphore requests(llmConcurrency);
  int64_t spent = 0;
  unsigned roundsWithoutGain = 0;
  for (unsigned round = 1; round <= rounds; ++round) {
    if (tokenBudget > 0 && spent >= tokenBudget) {
      record.stopReason =
          llvm::formatv("token-budget: {0} of {1} tokens spent after round "
                        "{2}",
                        spent, tokenBudget, round - 1)
              .str();
      break;
    }
    const Candidate &best = record.candidates[record.winner];
    values["ROUND"] = std::to_string(round);
    values["BEST_SCHEDULE"] = record.scripts[record.winner];
    values["BEST_SUMMARY"] = llvm::formatv(
        "candidate {0} ({1}), {2}", record.winner, best.source, formatMs(best));
    values["HISTORY"] = historyText(record);
    values["VENDOR_TIME"] = vendorTimeText(record);
    // The full reference of the ops earlier failures name, which the
    // system prompt shows only in brief.
    std::vector<std::string> failures;
    for (const Candidate &c : record.candidates)
      if (!c.ok() && c.status != CandidateStatus::Skipped)
        failures.push_back(c.diagnostic);
    values["OP_REFERENCE"] =
        userOpReference(templates.allowedOps, *info, failures);
    progress(record, llvm::formatv("round {0}/{1}: asking for {2} "
                                   "candidates; best: #{3} {4}",
                                   round, rounds, candidates, record.winner,
                                   formatMs(best))
                         .str());
    int64_t base = record.candidates.size();
    std::vector<Candidate> results(candidates);
    std::vector<std::string> scripts(candidates);
    std::vector<bool> unusable(candidates, false);
    auto writeCandidate = [&](size_t c) {
      std::map<std::string, std::string> mine = values;
      mine["CANDIDATE"] = std::to_string(c + 1);
      std::vector<llm::ChatMessage> messages = {
          {"system", systemPrompt},
          {"user", fillTemplate(templates.round, mine)}};
      llm::ChatResult reply;
      bool cached = false;
      {
        Semaphore::Hold inFlight(requests);
        reply = ask(messages, cached);
      }
      Candidate candidate{base + static_cast<int64_t>(c), "llm",
                          static_cast<int64_t>(round)};
      candidate.cached = cached;
      candidate.promptTokens = reply.usage.promptTokens;
      candidate.cachedTokens = reply.usage.cachedTokens;
      candidate.completionTokens = reply.usage.completionTokens;
      std::optional<std::string> script;
      if (reply.ok)
        script = llm::extractMlirBlock(reply.content);
      if (!reply.ok) {
        candidate.status = CandidateStatus::LLMError;
        candidate.diagnostic = reply.error;
        unusable[c] = reply.endpointUnusable;
      } else if (!script) {
        candidate.status = CandidateStatus::ParseError;
        candidate.diagnostic = "the reply has no ```mlir block";
      } else {
        candidate = evaluateScript(record, *script, std::move(candidate));
      }
      scripts[c] = script.value_or("");
      results[c] = std::move(candidate);
    };
    // One request at a time goes out in candidate order, so a scripted
    // server answers the same candidate the same way.
    if (llmConcurrency <= 1)
      for (size_t c = 0; c < candidates; ++c)
        writeCandidate(c);
    else
      forEachConcurrently(candidates, writeCandidate);

    bool improved = false, roundHadValid = false;
    for (unsigned c = 0; c < candidates; ++c) {
      Candidate &candidate = results[c];
      if (!candidate.cached.value_or(false))
        spent += candidate.promptTokens.value_or(0) +
                 candidate.completionTokens.value_or(0);
      double rank = rankOf(candidate);
      roundHadValid |= std::isfinite(rank);
      record.scripts.push_back(std::move(scripts[c]));
      record.candidates.push_back(std::move(candidate));
      if (rank < rankOf(record.candidates[record.winner])) {
        record.winner = record.candidates.size() - 1;
        // Only a measured gain counts: an estimate cannot show one.
        improved |= record.candidates.back().timeMs.has_value();
      }
    }
    checkpoint(record);
    if (llvm::is_contained(unusable, true)) {
      std::lock_guard<std::mutex> lock(statsMutex);
      if (stats.succeeded == 0 && stats.cacheHits == 0) {
        size_t first = llvm::find(unusable, true) - unusable.begin();
        record.fatal =
            ("LLM endpoint " + client->endpoint() + " rejected the request: " +
             record.candidates[base + first].diagnostic);
        return;
      }
    }
    std::string summary;
    for (unsigned c = 0; c < candidates; ++c)
      summary +=
          (c ? ", " : "") +
          stringifyCandidateStatus(record.candidates[base + c].status).str();
    progress(record,
             llvm::formatv("round {0}/{1}: {2}", round, rounds, summary).str());
    // `patience` rounds in a row without a measured gain: stop. A round
    // with no valid candidate at all goes on, so the next prompt can show
    // what failed.
    if (improved)
      roundsWithoutGain = 0;
    else if (roundHadValid && ++roundsWithoutGain >= patience) {
      if (round < rounds)
        record.stopReason =
            roundsWithoutGain == 1
                ? llvm::formatv("round {0} did not improve on a measured time",
                                round)
                      .str()
                : llvm::formatv("rounds {0} to {1} did not improve on a "
                                "measured time",
                                round + 1 - roundsWithoutGain, round)
                      .str();
      break;
    }
  }
}
