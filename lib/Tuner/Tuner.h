//===- Tuner.h - The llm-schedule tuner's state (private) -------*- C++ -*-===//
//
// One llm-schedule run: the pass's options, what it learned about each
// dispatch, and the jobs it is split into (LLMSchedulePass.cpp drives,
// Evaluate.cpp checks and measures one candidate, Search.cpp runs the
// variants and the LLM rounds, Prompts.cpp writes their text, Report.cpp
// writes the database rows, the artifacts and the reports).
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_TUNER_TUNER_H
#define VIBEGEMM_LIB_TUNER_TUNER_H

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/LLM/ChatClient.h"
#include "vibegemm/LLM/ResponseCache.h"
#include "vibegemm/Scheduler/Tiling.h"
#include "vibegemm/Target/TargetInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Tuner/Candidate.h"
#include "vibegemm/Tuner/DeviceQueue.h"
#include "vibegemm/Tuner/Prompts.h"
#include "vibegemm/TuningDB/TuningDB.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::tuner {

/// A candidate whose script is known before the search runs (the
/// built-in schedule, the database's winner, the built-in variants).
struct PendingCandidate {
  Candidate candidate;
  std::string script;
  /// False where the tuning database already knows its result.
  bool evaluate = true;
};

/// What the run learned about one dispatch, for report.json.
struct DispatchRecord {
  std::string name, signature, schedule;
  /// The dispatch; read and changed on the pass's thread only.
  func::FuncOp dispatch;
  GemmProblem problem;
  /// A module holding only a copy of the dispatch, as text: each
  /// candidate is parsed from it into a context of its own, so candidates
  /// compile on threads of their own.
  std::string workText;
  /// The dispatch as the prompts show it (without the target attribute).
  std::string promptIR;
  /// The f32 precision the user allowed the dispatch, if any.
  std::optional<std::string> allowedPrecision;
  /// The candidates known before the search, in index order.
  std::vector<PendingCandidate> pending;
  /// The dispatch tuned first with the same signature: this one reuses
  /// its result instead of being tuned again.
  std::optional<size_t> sameAs;
  /// Why the search failed as a whole (an unusable LLM endpoint).
  std::optional<std::string> fatal;
  /// Why the LLM rounds stopped before the last one, if they did.
  std::string stopReason;
  /// The built-in scheduler's choice, so users see which schedule ran and
  /// why (the script's own comments do not survive parsing).
  vibegemm::SimtTiling tiling;
  /// The GEMM over plan buffers, for cuBLAS; `plain` when it is the whole
  /// dispatch, so cuBLAS can check it.
  std::optional<llvm::json::Object> gemm;
  bool plain = false;
  /// Every candidate tried; the winner's index and script (a named
  /// sequence).
  std::vector<Candidate> candidates;
  /// The script of each candidate ("" where there was none).
  std::vector<std::string> scripts;
  size_t winner = 0;
  /// The LLM candidate that ranked best on static estimates alone, when no
  /// GPU verified it: it guided the prompts but does not ship.
  std::optional<size_t> unverifiedBest;
  /// Recorded in the tuning database as soon as it was tuned, so a run
  /// stopped later (a Slurm time limit, Ctrl-C) keeps it.
  bool recorded = false;
  /// The id of its run in the tuning database, which each round's
  /// checkpoint records again.
  std::string runUid;
};

/// The same module compiled with the reference schedule.
struct ReferenceArtifacts {
  std::map<std::string, std::string> ptx;          // dispatch -> PTX
  std::map<std::string, llvm::json::Object> plans; // dispatch or function
  std::string error;
};

/// How candidates are measured in this run.
struct Measurement {
  bool enabled = false;
  std::string runner, device, why;
};

/// What the LLM cost and did in this run, for report.json.
struct LLMStats {
  int64_t requests = 0, succeeded = 0, failed = 0, cacheHits = 0;
  int64_t promptTokens = 0, cachedTokens = 0, completionTokens = 0;
};

/// The options of llm-schedule (include/vibegemm/Tuner/Passes.td), copied
/// from the pass for each run.
struct TunerOptions {
  std::string endpoint, model, measure, f32Precision, target, artifactsDir, db,
      ptxas, runner, cacheDir, promptsDir, devices;
  unsigned rounds = 3, patience = 1, candidates = 4, sandboxTimeout = 60;
  unsigned llmConcurrency = 4, tuneDispatches = 8, jobs = 0;
  int64_t tokenBudget = 0;
  bool keepCandidates = false, programmaticLaunch = false;
  bool reuseMeasurements = true;
  double measureTimeout = 60, llmTimeout = 120;
  /// "I/N": tune only the dispatches of shard I (LLMSchedulePass.cpp).
  std::string shard;
  /// Buckets of a dynamic M (vibegemm-bucket-dispatches); empty: default.
  std::vector<int64_t> bucketSizes;
};

/// How a candidate ranks: measured time, else the static estimate; failed
/// candidates never win.
double rankOf(const Candidate &candidate);

/// "1.234 ms", "~1.234 ms (estimated)" or "-".
std::string formatMs(const Candidate &candidate);

/// `ms` to four significant digits.
std::string significantMs(double ms);

/// The xxh3 hash of `script`'s canonical form, 16 hex digits: the script
/// parsed in a context with `registry`'s dialects and printed, so comments,
/// value names and spelled-out defaults do not change it; a script that
/// does not parse hashes as written.
std::string hashScript(const DialectRegistry &registry, llvm::StringRef script);

/// Writes `contents` to `dir/name` through a temporary file and a rename,
/// so a reader never sees a half-written file.
llvm::Error writeAtomically(llvm::StringRef dir, llvm::StringRef name,
                            llvm::StringRef contents);

/// writeAtomically, its failure a diagnostic at `loc`.
LogicalResult writeArtifact(Location loc, llvm::StringRef dir,
                            llvm::StringRef name, llvm::StringRef contents);

/// `value` as two-space-indented JSON, ending in a newline.
std::string formatJson(const llvm::json::Value &value);

/// The llm-schedule run. The pass keeps one across the modules it runs on,
/// as its members did, so a probe and the LLM statistics are kept.
class Tuner : public TunerOptions {
public:
  /// vibegemm-bucket-dispatches as this run buckets a dynamic M.
  VibeGemmBucketDispatchesPassOptions bucketOptions() const {
    VibeGemmBucketDispatchesPassOptions options;
    options.bucketSizes.assign(bucketSizes.begin(), bucketSizes.end());
    return options;
  }

  /// Runs a pipeline on an op, as the pass's runPipeline does.
  using PipelineRunner =
      std::function<LogicalResult(OpPassManager &, Operation *)>;

  /// Tunes and compiles `module`; diagnostics say why it failed.
  LogicalResult run(ModuleOp module, const PipelineRunner &pipelineRunner);

private:
  void printSummary(const std::vector<DispatchRecord> &records);
  void finishDispatch(DispatchRecord &record);
  bool recordSoFar(DispatchRecord &record);
  void checkpoint(DispatchRecord &record);

  // Evaluate.cpp: one candidate. evaluateScript and what it calls run on
  // any thread: each candidate compiles in an MLIRContext of its own.
  bool probeGpu();
  Measurement setUpMeasurement();
  LogicalResult setUpConcurrency(Location loc);
  ReferenceArtifacts buildReference(ModuleOp module);
  /// Runs a candidate's plan; a dispatch over a dynamic M runs at its
  /// bucket's representative M (`problem.m`).
  llvm::json::Object
  measureCandidate(llvm::StringRef planName,
                   const std::map<std::string, std::string> &files,
                   const GemmProblem &problem, Candidate &candidate);
  static void recordMeasurement(Candidate &candidate,
                                llvm::json::Object result);
  void decoratePlan(llvm::json::Object &plan, const DispatchRecord &record,
                    std::map<std::string, std::string> &files);
  void addReferencePlan(llvm::json::Object &plan, const std::string &name,
                        std::map<std::string, std::string> &files);
  std::string sandboxRun(ModuleOp work);
  Candidate evaluateScript(const DispatchRecord &record, llvm::StringRef script,
                           Candidate candidate);
  bool reuseMeasured(const DispatchRecord &record, Candidate &candidate);
  void keepCandidateFiles(Candidate &candidate, const DispatchRecord &record,
                          const std::map<std::string, std::string> &files);

  // Search.cpp: the candidates of one dispatch. prepareDispatch runs on
  // the pass's thread; tuneDispatch on a thread of its own.
  LogicalResult prepareDispatch(func::FuncOp dispatch, DispatchRecord &record,
                                ModuleOp schedules);
  void tuneDispatch(DispatchRecord &record);
  void tuneWithLLM(DispatchRecord &record);
  llm::ChatResult ask(const std::vector<llm::ChatMessage> &messages,
                      bool &cached);
  void progress(const DispatchRecord &r, llvm::StringRef what);

  // Prompts.cpp: the text filled into the prompt templates.
  static std::string historyText(const DispatchRecord &record);
  static std::string vendorTimeText(const DispatchRecord &record);
  std::string problemText(const DispatchRecord &r);
  std::string targetText();

  // Report.cpp: database rows, artifacts, report.json and report.html.
  TuningRun toTuningRun(const DispatchRecord &r) const;
  llvm::json::Array measurementDevices() const;
  LogicalResult writeArtifacts(ModuleOp module,
                               std::vector<DispatchRecord> &records);

  PipelineRunner runPipeline;
  ModuleOp module;
  const vibegemm::TargetInfo *info = nullptr;
  /// The target's facts for the GPU that measures (its memory bandwidth).
  std::optional<vibegemm::TargetInfo> measuredInfo;
  /// Why `target=auto` chose the target ("" when it was given).
  std::string targetWhy;
  std::optional<bool> probed;
  std::string probeAnswer, runnerPath;
  std::optional<std::string> ptxasPath;
  PromptTemplates templates;
  /// The system prompt, the same for every request of the run.
  std::string systemPrompt;
  llvm::StringSet<> allowlist;
  /// Every context a candidate compiles in gets this registry.
  const DialectRegistry *registry = nullptr;
  std::unique_ptr<DeviceQueue> deviceQueue;
  std::unique_ptr<Semaphore> compileJobs;
  std::mutex statsMutex, progressMutex, databaseMutex;
  std::chrono::steady_clock::time_point startTime;
  /// Wall time of the search (candidates and LLM rounds), for the report.
  double tuningSeconds = 0;
  double secondsSinceStart() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         startTime)
        .count();
  }
  Measurement measurement;
  ReferenceArtifacts reference;
  std::optional<llm::ChatClient> client;
  std::optional<llm::ResponseCache> cache;
  LLMStats stats;
  std::unique_ptr<TuningDB> tuningDB;
};

} // namespace mlir::vibegemm::tuner

#endif // VIBEGEMM_LIB_TUNER_TUNER_H
