//===- Candidate.h - One schedule the tuner tried ---------------*- C++ -*-===//
//
// A candidate schedule of one dispatch and what became of it: where it came
// from, its status, its resources and its time. The tuner reads and ranks
// these; report.json and the tuning database get them through toJson and
// toRow, the only places the field names and status strings are spelled.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNER_CANDIDATE_H
#define VIBEGEMM_TUNER_CANDIDATE_H

#include "vibegemm/TuningDB/TuningDB.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::vibegemm::tuner {

/// What became of a candidate. The first failure wins: a script that does
/// not parse is a parse error even if it would also have been rejected.
enum class CandidateStatus {
  Ok,            ///< compiled (and, when measured, verified)
  ParseError,    ///< no script, or one that does not parse
  RejectedOp,    ///< uses an op outside the allowlist (ScriptCheck)
  RejectedValue, ///< gives an op a size out of range (ScriptCheck)
  ApplyError,    ///< applying the script failed or crashed the sandbox
  LoweringError, ///< the scheduled dispatch did not lower to PTX
  PtxasError,    ///< ptxas refused the PTX
  LLMError,      ///< the LLM request failed
  Skipped,       ///< not run: the tuning database knows its result
  WrongResult,   ///< the GPU computed a wrong result (vibegemm-run)
  Fault,         ///< the kernel faulted or did not load (vibegemm-run)
  Timeout,       ///< the kernel ran past the measure timeout (vibegemm-run)
};

/// The status as report.json, the tuning database and the prompts spell it
/// ("ok", "parse-error", ...).
llvm::StringRef stringifyCandidateStatus(CandidateStatus status);

/// The status spelled `name`, as ScriptCheck and vibegemm-run report it.
std::optional<CandidateStatus> parseCandidateStatus(llvm::StringRef name);

/// One candidate schedule of a dispatch. Fields that are not set are left
/// out of report.json, as each step of the evaluation adds its own.
struct Candidate {
  int64_t index = 0;
  /// "builtin", "db", "builtin-variant" or "llm".
  std::string source;
  int64_t round = 0;
  /// The built-in variant's name (source "builtin-variant").
  std::optional<std::string> variant;
  /// An LLM candidate's request: from the cache, and what it cost.
  std::optional<bool> cached;
  std::optional<int64_t> promptTokens, cachedTokens, completionTokens;
  std::optional<std::string> scriptHash;
  /// A hash of the PTX and launch plan it compiled to, which keys the
  /// measurements the tuning database reuses.
  std::optional<std::string> kernelHash;
  /// The tuning run whose verified measurement of the same kernel gave
  /// its time, where it was not run again (reuse-measurements).
  std::optional<int64_t> measuredInRun;

  CandidateStatus status = CandidateStatus::Ok;
  std::string diagnostic;

  /// Set once the script's evaluation began (the allowlist check): then
  /// the time, throughput, timing and roofline are reported, null where
  /// unknown.
  bool evaluated = false;
  std::optional<double> timeMs, tflops;
  /// "estimated" or "measured".
  std::string timing;
  double rooflineMs = 0;
  /// ptxas's resources (registers, spill_bytes, ...), or that it is absent.
  std::optional<llvm::json::Object> resources;
  bool ptxasMissing = false;
  std::optional<int64_t> dynamicSharedBytes;
  /// Its launches as the prompts show them (describeLaunchFits): blocks,
  /// threads, blocks resident per SM, shared memory.
  std::optional<std::string> launchFit;
  std::optional<double> estimatedMs;
  /// keep-candidates: the directory of its files, or why there is none.
  std::optional<std::string> files, filesError;
  /// The GPU that measured it: its index among the run's devices, its
  /// name, and when the measurement began and ended (seconds since the
  /// run's start), so a report shows that no two overlapped on a device.
  std::optional<unsigned> deviceOrdinal;
  std::string deviceName;
  double measureStart = 0, measureEnd = 0;
  /// vibegemm-run's report, and why the measurement itself failed.
  std::optional<llvm::json::Object> measurement;
  std::optional<std::string> measureError;

  bool ok() const { return status == CandidateStatus::Ok; }
  /// The registers, spill bytes or shared bytes ptxas reported.
  std::optional<int64_t> resource(llvm::StringRef key) const;

  /// The candidate as a report.json entry.
  llvm::json::Object toJson() const;
  /// The candidate as a tuning-database row, with its script.
  CandidateRow toRow(std::string script) const;
};

} // namespace mlir::vibegemm::tuner

#endif // VIBEGEMM_TUNER_CANDIDATE_H
