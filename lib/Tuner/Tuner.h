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
#include "vibegemm/Tuner/Candidate.h"
#include "vibegemm/Tuner/Prompts.h"
#include "vibegemm/TuningDB/TuningDB.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::tuner {

/// What the run learned about one dispatch, for report.json.
struct DispatchRecord {
  std::string name, signature, schedule;
  GemmProblem problem;
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
  int64_t promptTokens = 0, completionTokens = 0;
};

/// The options of llm-schedule (include/vibegemm/Tuner/Passes.td), copied
/// from the pass for each run.
struct TunerOptions {
  std::string endpoint, model, measure, f32Precision, target, artifactsDir, db,
      ptxas, runner, cacheDir, promptsDir;
  unsigned rounds = 3, candidates = 4, sandboxTimeout = 60;
  bool keepCandidates = false;
  double measureTimeout = 60, llmTimeout = 120;
  /// "I/N": tune only the dispatches of shard I (LLMSchedulePass.cpp).
  std::string shard;
};

/// How a candidate ranks: measured time, else the static estimate; failed
/// candidates never win.
double rankOf(const Candidate &candidate);

/// "1.234 ms", "~1.234 ms (estimated)" or "-".
std::string formatMs(const Candidate &candidate);

/// The xxh3 hash of `text`, 16 hex digits.
std::string hashText(llvm::StringRef text);

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
  /// Runs a pipeline on an op, as the pass's runPipeline does.
  using PipelineRunner =
      std::function<LogicalResult(OpPassManager &, Operation *)>;

  /// Tunes and compiles `module`; diagnostics say why it failed.
  LogicalResult run(ModuleOp module, const PipelineRunner &pipelineRunner);

private:
  void printSummary(const std::vector<DispatchRecord> &records);

  // Evaluate.cpp: one candidate.
  bool probeGpu();
  Measurement setUpMeasurement();
  ReferenceArtifacts buildReference(ModuleOp module);
  llvm::json::Object
  measureCandidate(llvm::StringRef planName,
                   const std::map<std::string, std::string> &files);
  static void recordMeasurement(Candidate &candidate,
                                llvm::json::Object result);
  void decoratePlan(llvm::json::Object &plan, const DispatchRecord &record,
                    std::map<std::string, std::string> &files);
  void addReferencePlan(llvm::json::Object &plan, const std::string &name,
                        std::map<std::string, std::string> &files);
  std::string sandboxRun(ModuleOp work);
  Candidate evaluateScript(ModuleOp module, func::FuncOp dispatch,
                           const DispatchRecord &record, llvm::StringRef script,
                           Candidate candidate);
  void keepCandidateFiles(Candidate &candidate, const DispatchRecord &record,
                          const std::map<std::string, std::string> &files);

  // Search.cpp: the built-in variants, the database's winner, LLM rounds.
  void evaluateBuiltinAndStored(ModuleOp module, func::FuncOp dispatch,
                                DispatchRecord &record, ModuleOp schedules);
  LogicalResult raceAlternatives(ModuleOp module, func::FuncOp dispatch,
                                 DispatchRecord &record);
  LogicalResult tuneWithLLM(ModuleOp module, func::FuncOp dispatch,
                            DispatchRecord &record);
  void progress(const DispatchRecord &r, unsigned round, unsigned candidate,
                llvm::StringRef status);

  // Prompts.cpp: the text filled into the prompt templates.
  static std::string historyText(const DispatchRecord &record);
  std::string problemText(const DispatchRecord &r);
  std::string targetText();

  // Report.cpp: database rows, artifacts, report.json and report.html.
  TuningRun toTuningRun(const DispatchRecord &r) const;
  LogicalResult writeArtifacts(ModuleOp module,
                               std::vector<DispatchRecord> &records);

  PipelineRunner runPipeline;
  ModuleOp module;
  const vibegemm::TargetInfo *info = nullptr;
  /// Why `target=auto` chose the target ("" when it was given).
  std::string targetWhy;
  std::optional<bool> probed;
  std::string probeAnswer, runnerPath;
  std::optional<std::string> ptxasPath;
  PromptTemplates templates;
  llvm::StringSet<> allowlist;
  Measurement measurement;
  ReferenceArtifacts reference;
  std::optional<llm::ChatClient> client;
  std::optional<llm::ResponseCache> cache;
  LLMStats stats;
  std::unique_ptr<TuningDB> tuningDB;
};

} // namespace mlir::vibegemm::tuner

#endif // VIBEGEMM_LIB_TUNER_TUNER_H
