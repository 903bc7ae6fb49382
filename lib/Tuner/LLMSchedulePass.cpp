//===- LLMSchedulePass.cpp - llm-schedule: tune, then compile to PTX ------===//
//
// The user entry point. Chains dispatch formation, scheduling, schedule
// application and lowering. Every dispatch gets candidates: the built-in
// schedule first, then, with an endpoint, LLM-written scripts over several
// rounds (Search.cpp). Each candidate is checked, measured on the GPU when
// one is present or estimated (Evaluate.cpp), and the best one is compiled.
// Writes the artifacts directory and report.json/report.html (Report.cpp).
//
//===----------------------------------------------------------------------===//

#include "Tuner.h"

#include "vibegemm/Runtime/Isolation.h"
#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/Target/Ptxas.h"
#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/Transforms/Schedules.h"
#include "vibegemm/Tuner/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <random>

namespace mlir::vibegemm {
#define GEN_PASS_DEF_LLMSCHEDULEPASS
#include "vibegemm/Tuner/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;
namespace json = llvm::json;

/// 32 random hex digits: a tuning run's id across databases.
static std::string freshRunUid() {
  std::random_device random;
  std::string uid;
  llvm::raw_string_ostream os(uid);
  for (int i = 0; i < 4; ++i)
    os << llvm::format_hex_no_prefix(random(), 8);
  return uid;
}

LogicalResult Tuner::run(ModuleOp module,
                         const PipelineRunner &pipelineRunner) {
  // The options were copied from the pass for this run, so the auto choice
  // of target stands for this run only.
  this->module = module;
  runPipeline = pipelineRunner;
  startTime = std::chrono::steady_clock::now();
  if (target == "auto") {
    // The GPU here decides; without one, portable sm_90.
    bool found = probeGpu();
    vibegemm::TargetChoice choice =
        vibegemm::chooseTargetFromProbe(found, probeAnswer);
    if (choice.target.empty()) {
      emitError(module.getLoc(), "target=auto: ")
          << choice.why << "; pass target= to compile for another GPU";
      return failure();
    }
    target = choice.target;
    targetWhy = "target=auto: " + choice.why;
  }
  info = vibegemm::lookupTargetOrEmitError(target, module.getLoc());
  if (!info)
    return failure();
  if (measure != "auto" && measure != "on" && measure != "off") {
    emitError(module.getLoc(), "measure must be auto, on or off, not '")
        << measure << "'";
    return failure();
  }
  if (patience == 0) {
    emitError(module.getLoc(), "patience must be at least 1 round");
    return failure();
  }
  // shard=I/N: a signature's xxh3 hash (the same on every host) picks the
  // one task of N that tunes it.
  uint64_t shardIndex = 0, shardCount = 0;
  if (!shard.empty()) {
    auto [index, count] = StringRef(shard).split('/');
    if (index.getAsInteger(10, shardIndex) ||
        count.getAsInteger(10, shardCount) || shardIndex >= shardCount) {
      emitError(module.getLoc(), "shard must be I/N with 0 <= I < N, not '")
          << shard << "'";
      return failure();
    }
  }
  ptxasPath = vibegemm::findPtxas(ptxas);
  if (!ptxas.empty() && !ptxasPath) {
    emitError(module.getLoc(), "ptxas not found at ") << ptxas;
    return failure();
  }
  llvm::Expected<PromptTemplates> loaded = loadPromptTemplates(promptsDir);
  if (!loaded) {
    emitError(module.getLoc()) << llvm::toString(loaded.takeError());
    return failure();
  }
  templates = std::move(*loaded);
  allowlist = parseAllowlist(templates.allowlist);
  measurement = setUpMeasurement();
  if (measurement.enabled) {
    // Rooflines and estimates by the floor of the GPU that measures.
    measuredInfo = vibegemm::forDevice(*info, measurement.device);
    info = &*measuredInfo;
  }
  if (measure == "on" && !measurement.enabled) {
    emitError(module.getLoc(), "measure=on, but candidates cannot be "
                               "measured here: ")
        << measurement.why;
    return failure();
  }
  std::string llmEndpoint = endpoint;
  if (llmEndpoint.empty())
    llmEndpoint =
        llvm::sys::Process::GetEnv("VIBEGEMM_LLM_ENDPOINT").value_or("");
  if (!llmEndpoint.empty()) {
    std::string llmModel = model;
    if (llmModel.empty())
      llmModel =
          llvm::sys::Process::GetEnv("VIBEGEMM_LLM_MODEL").value_or("default");
    llm::ChatOptions options;
    options.timeoutSeconds = llmTimeout;
    // The key is read here and nowhere else, and never written anywhere.
    client.emplace(
        llmEndpoint, llmModel,
        llvm::sys::Process::GetEnv("VIBEGEMM_LLM_API_KEY").value_or(""),
        options);
    std::string dir = cacheDir;
    if (dir.empty())
      dir = llm::ResponseCache::defaultDirectory();
    cache.emplace(dir == "off" ? "" : dir);
  }

  FailureOr<std::unique_ptr<TuningDB>> opened = openTuningDB(
      tuningDBPath(db, /*useEnv=*/true), /*create=*/true, module.getLoc());
  if (failed(opened))
    return failure();
  tuningDB = std::move(*opened);

  // Reference kernels come from an untouched copy of the input.
  reference = buildReference(module);

  // Form dispatches and write the built-in schedules. Input the compiler
  // rejects is reported here once, not also as a reference failure.
  OpPassManager front(ModuleOp::getOperationName());
  VibeGemmFormDispatchesPassOptions formOptions;
  formOptions.f32Precision = f32Precision;
  front.addPass(createVibeGemmPreparePass());
  front.addPass(createVibeGemmFormDispatchesPass(formOptions));
  front.addPass(createVibeGemmBucketDispatchesPass(bucketOptions()));
  front.addPass(createVibeGemmBuiltinSchedulePass({target}));
  if (failed(runPipeline(front, module)))
    return failure();
  if (!reference.error.empty())
    module.emitWarning("reference kernels could not be built, so only "
                       "cuBLAS can check these kernels: ")
        << reference.error;

  if (failed(setUpConcurrency(module.getLoc())))
    return failure();
  registry = &module.getContext()->getDialectRegistry();
  // The system prompt is the same for every request of the run, so that
  // providers' prefix caches hit; what is specific to a dispatch goes in
  // the user message.
  const std::map<std::string, std::string> runValues = {
      {"TARGET_FACTS", targetText()},
      {"ROUNDS", std::to_string(rounds)},
      {"CANDIDATES", std::to_string(candidates)},
      {"ALLOWED_OPS", systemOpReference(templates.allowedOps, *info)}};
  systemPrompt = fillTemplate(templates.system, runValues);
  if (!StringRef(templates.system).contains("{{ALLOWED_OPS}}"))
    systemPrompt += "\n\n" + runValues.at("ALLOWED_OPS");

  // What reads the IR or the database happens here, on this thread.
  ModuleOp schedules = getSchedulesModule(module, /*create=*/false);
  std::vector<DispatchRecord> records;
  llvm::StringMap<size_t> bySignature;
  for (func::FuncOp dispatch : getDispatches(module)) {
    // Generic dispatches keep the generic schedule; they are not tuned.
    if (isGenericDispatch(dispatch))
      continue;
    // Another shard's dispatch keeps the built-in schedule, untuned.
    StringRef signature = dispatch->getAttrOfType<StringAttr>(kSignatureAttr);
    if (shardCount && llvm::xxh3_64bits(signature) % shardCount != shardIndex)
      continue;
    DispatchRecord record;
    record.name = dispatch.getSymName().str();
    record.signature =
        dispatch->getAttrOfType<StringAttr>(kSignatureAttr).str();
    record.runUid = freshRunUid();
    record.problem = *getGemmProblem(dispatch);
    // Dispatches with one signature compute the same thing: tune the
    // first, and give the others its result.
    auto [it, first] =
        bySignature.try_emplace(record.signature, records.size());
    if (!first) {
      record.dispatch = dispatch;
      record.sameAs = it->second;
    } else if (failed(prepareDispatch(dispatch, record, schedules))) {
      return failure();
    }
    records.push_back(std::move(record));
  }

  // Each distinct dispatch is tuned on a thread of its own,
  // `tune-dispatches` at a time.
  Semaphore tuning(tuneDispatches);
  double searchStart = secondsSinceStart();
  forEachConcurrently(records.size(), [&](size_t i) {
    if (records[i].sameAs)
      return;
    Semaphore::Hold hold(tuning);
    tuneDispatch(records[i]);
    finishDispatch(records[i]);
  });
  tuningSeconds = secondsSinceStart() - searchStart;

  for (DispatchRecord &record : records) {
    func::FuncOp dispatch = record.dispatch;
    if (record.sameAs) {
      const DispatchRecord &tuned = records[*record.sameAs];
      record.tiling = tuned.tiling;
      record.gemm = tuned.gemm;
      record.plain = tuned.plain;
      record.candidates = tuned.candidates;
      record.scripts = tuned.scripts;
      record.winner = tuned.winner;
      record.unverifiedBest = tuned.unverifiedBest;
      record.stopReason = tuned.stopReason;
    }
    if (record.fatal)
      return emitError(dispatch.getLoc()) << *record.fatal;
  }
  if (client && stats.succeeded == 0 && stats.cacheHits == 0 &&
      stats.failed > 0 && !records.empty()) {
    DispatchRecord &r = records.front();
    const Candidate &last = r.candidates.back();
    return emitError(r.dispatch.getLoc(), "LLM endpoint ")
           << client->endpoint() << " gave no usable reply in "
           << stats.requests << " requests; the last: " << last.diagnostic;
  }

  for (DispatchRecord &record : records) {
    func::FuncOp dispatch = record.dispatch;
    const Candidate &win = record.candidates[record.winner];
    if (measurement.enabled && !win.ok()) {
      // Never hand out a kernel the GPU just showed to be wrong.
      emitError(dispatch.getLoc(), "dispatch ")
          << record.name << ": no candidate passed verification on "
          << measurement.device << " (" << stringifyCandidateStatus(win.status)
          << ": " << win.diagnostic
          << "); this is a vibegemm bug, please report it "
             "(measure=off skips the check)";
      return failure();
    }
    if (!win.ok()) {
      // Nor one that ptxas (or the lowering) refused.
      emitError(dispatch.getLoc(), "dispatch ")
          << record.name << ": no candidate compiled ("
          << stringifyCandidateStatus(win.status) << ": " << win.diagnostic
          << ")";
      return failure();
    }
    if (record.winner != 0 &&
        failed(attachSchedule(dispatch, record.scripts[record.winner])))
      return failure();
    record.schedule = vibegemm::wrapForReplay(
        printSchedule(dispatch, schedules), record.name, record.name);
  }

  OpPassManager back(ModuleOp::getOperationName());
  back.addPass(createVibeGemmApplySchedulesPass());
  buildLowerToPTXPipeline(back, target, /*optLevel=*/3, programmaticLaunch);
  if (failed(runPipeline(back, module)))
    return failure();

  if (tuningDB)
    for (const DispatchRecord &r : records)
      if (llvm::Error err = r.sameAs || r.recorded
                                ? llvm::Error::success()
                                : tuningDB->record(toTuningRun(r))) {
        emitError(module.getLoc()) << llvm::toString(std::move(err));
        return failure();
      }
  if (failed(writeArtifacts(module, records)))
    return failure();
  if (!client) {
    llvm::errs() << "vibegemm: no LLM endpoint configured; the built-in "
                    "scheduler ran";
    if (!targetWhy.empty())
      llvm::errs() << " for " << target << " (" << targetWhy << ")";
    llvm::errs() << "\n";
    return success();
  }
  printSummary(records);
  return success();
}

/// Records the dispatch's candidates so far in the tuning database, where
/// its winner would ship (it compiled, and passed the GPU's check where one
/// measured); says whether it did. Each record of one dispatch replaces
/// the last: they share the run's uid. An error is not fatal here: the
/// run records the dispatch again at the end, and reports the error there.
bool Tuner::recordSoFar(DispatchRecord &record) {
  if (!tuningDB || record.fatal || !record.candidates[record.winner].ok())
    return false;
  std::lock_guard<std::mutex> lock(databaseMutex);
  if (llvm::Error err = tuningDB->record(toTuningRun(record))) {
    llvm::consumeError(std::move(err));
    return false;
  }
  return true;
}

/// After a measured dispatch's built-in candidates and after each LLM
/// round, so a run stopped mid-search (a call's time limit, a preempted
/// Slurm task) keeps every verified time, which a later run reuses
/// (reuse-measurements). Estimates are not checkpointed: an unverified LLM
/// winner must not be stored.
void Tuner::checkpoint(DispatchRecord &record) {
  if (measurement.enabled)
    recordSoFar(record);
}

/// Keeps a dispatch's result as soon as its search ends: in the tuning
/// database (recordSoFar), and, when it searched (an LLM or a GPU), as
/// one line on stderr, terminal or not, so a long run's log shows how far
/// it got.
void Tuner::finishDispatch(DispatchRecord &record) {
  if (record.fatal)
    return;
  const Candidate &win = record.candidates[record.winner];
  // The database first: the log line then says the run is kept.
  record.recorded = recordSoFar(record);
  if (!client && !measurement.enabled)
    return;
  std::lock_guard<std::mutex> lock(progressMutex);
  llvm::errs() << llvm::formatv(
      "vibegemm: [{0}] tuned at {1:F0} s: candidate {2} ({3}) {4} of {5}\n",
      record.name, secondsSinceStart(), record.winner, win.source,
      win.ok() ? formatMs(win) : stringifyCandidateStatus(win.status).str(),
      record.candidates.size());
}

void Tuner::printSummary(const std::vector<DispatchRecord> &records) {
  if (!targetWhy.empty())
    llvm::errs() << "vibegemm: " << target << " (" << targetWhy << ")\n";
  for (const DispatchRecord &r : records) {
    if (r.sameAs) {
      llvm::errs() << "vibegemm: " << r.name << ": the same GEMM as "
                   << records[*r.sameAs].name << ", tuned once\n";
      continue;
    }
    const Candidate &win = r.candidates[r.winner];
    bool anyValid = false;
    for (const Candidate &c : r.candidates)
      anyValid |= c.source == "llm" && c.ok();
    llvm::errs() << "vibegemm: " << r.name << ": ";
    if (r.unverifiedBest) {
      const Candidate &best = r.candidates[*r.unverifiedBest];
      llvm::errs() << "LLM candidate " << *r.unverifiedBest << " (round "
                   << best.round << ", " << formatMs(best)
                   << ") ranked best, but no GPU verified it; candidate "
                   << r.winner << " (" << win.source << ") ships\n";
      continue;
    }
    if (r.winner != 0)
      llvm::errs() << "winner candidate " << r.winner << " (" << win.source
                   << ", round " << win.round << "), " << formatMs(win) << "\n";
    else if (!anyValid)
      llvm::errs() << "no LLM candidate was valid; the built-in schedule "
                      "won\n";
    else
      llvm::errs() << "the built-in schedule stayed best, " << formatMs(win)
                   << "\n";
  }
  llvm::errs() << llvm::formatv(
      "vibegemm: LLM: {0} requests ({1} failed), {2} answers from the "
      "cache, {3} prompt ({4} of them cached by the provider) + {5} "
      "completion tokens\n",
      stats.requests, stats.failed, stats.cacheHits, stats.promptTokens,
      stats.cachedTokens, stats.completionTokens);
}

namespace {
class LLMSchedulePass
    : public WithVibeGemmTransformOps<
          vibegemm::impl::LLMSchedulePassBase<LLMSchedulePass>> {
public:
  using WithVibeGemmTransformOps::WithVibeGemmTransformOps;

  void runOnOperation() override {
    // One tuner for every module this pass instance runs on, as the pass's
    // own state was; shared because passes must be copyable.
    if (!tuner)
      tuner = std::make_shared<Tuner>();
    TunerOptions &o = *tuner;
    o.endpoint = endpoint;
    o.model = model;
    o.rounds = rounds;
    o.patience = patience;
    o.candidates = candidates;
    o.measure = measure;
    o.f32Precision = f32Precision;
    o.target = target;
    o.artifactsDir = artifactsDir;
    o.keepCandidates = keepCandidates;
    o.programmaticLaunch = programmaticLaunch;
    o.reuseMeasurements = reuseMeasurements;
    o.db = db;
    o.ptxas = ptxas;
    o.runner = runner;
    o.measureTimeout = measureTimeout;
    o.sandboxTimeout = sandboxTimeout;
    o.llmTimeout = llmTimeout;
    o.cacheDir = cacheDir;
    o.promptsDir = promptsDir;
    o.devices = devices;
    o.llmConcurrency = llmConcurrency;
    o.tuneDispatches = tuneDispatches;
    o.jobs = jobs;
    o.tokenBudget = tokenBudget;
    o.shard = shard;
    o.bucketSizes.assign(bucketSizes.begin(), bucketSizes.end());
    auto run = [this](OpPassManager &pm, Operation *op) {
      return runPipeline(pm, op);
    };
    if (failed(tuner->run(getOperation(), run)))
      signalPassFailure();
  }

private:
  std::shared_ptr<Tuner> tuner;
};
} // namespace
