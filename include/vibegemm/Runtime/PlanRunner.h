//===- PlanRunner.h - Verify and time a launch plan on the GPU --*- C++ -*-===//
//
// Runs a launch plan in this process: seeded random non-zero inputs,
// NaN-poisoned outputs, guard bytes around every buffer, a check against an
// independent reference, a determinism check, timing, and a re-check on
// fresh inputs after timing. A faulting kernel can leave the CUDA context
// unusable, so callers that must survive faults use Isolation.h instead.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_PLANRUNNER_H
#define VIBEGEMM_RUNTIME_PLANRUNNER_H

#include "vibegemm/Runtime/Plan.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir::vibegemm::runtime {

enum class ReferenceMode { Auto, Cublas, Kernel, None };

struct RunOptions {
  uint64_t seed = 1;
  ReferenceMode reference = ReferenceMode::Auto;
  bool time = true;
  bool compareCublas = false;
  /// Longest wait for one GPU step before the run is called a timeout.
  double timeoutSeconds = 60;
  size_t guardBytes = 4096;
  /// GEMMs up to this many multiply-adds are checked on the CPU in full;
  /// larger ones at `cpuSamples` positions.
  uint64_t cpuFullLimit = uint64_t(1) << 27;
  size_t cpuSamples = 256;
  int minRuns = 10, maxRuns = 200;
  double timingBudgetMs = 1000;
  /// GPU time of untimed back-to-back runs (each after its L2 flush) before
  /// the timed ones, so that every side is timed at the clock it holds
  /// under sustained load (the timing protocol: lib/Runtime/Timing.h).
  double sustainMs = 500;
  /// Values of a version 2 plan's run-time sizes (its reference plan's too).
  SizeBindings sizes;
};

/// Statuses, as in report.json.
inline constexpr const char *kStatusOk = "ok";
inline constexpr const char *kStatusWrongResult = "wrong-result";
inline constexpr const char *kStatusFault = "fault";
inline constexpr const char *kStatusTimeout = "timeout";
inline constexpr const char *kStatusUnchecked = "unchecked";
inline constexpr const char *kStatusNoGpu = "no-gpu";
inline constexpr const char *kStatusPlanError = "plan-error";
inline constexpr const char *kStatusLoadError = "load-error";
inline constexpr const char *kStatusReferenceError = "reference-error";

/// Exit code of vibegemm-run for a status: 0 ok/unchecked, 1 the kernel
/// failed (wrong-result, fault, timeout), 2 plan/load/reference errors,
/// 3 no GPU.
int exitCodeForStatus(llvm::StringRef status);

/// Verifies and times `planPath` in this process. Never throws; the result
/// object always has "status" and "diagnostic".
llvm::json::Object runPlanInProcess(llvm::StringRef planPath,
                                    const RunOptions &options);

/// Whether a CUDA driver and GPU are usable here; `description` gets the
/// device name or why not.
bool probeGpu(std::string &description);

/// The GPUs this process can see (CUDA_VISIBLE_DEVICES applies), as
/// "NAME (sm_XY)" in CUDA's order; false with `whyNot` when there is none.
bool listGpus(std::vector<std::string> &names, std::string &whyNot);

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_PLANRUNNER_H
