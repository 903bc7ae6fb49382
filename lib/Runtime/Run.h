//===- Run.h - One verification and timing of a plan ------------*- C++ -*-===//
//
// Private to the runtime. The state of one run of runPlanInProcess and its
// steps, defined by concern: the orchestration, loading and allocation in
// PlanRunner.cpp, the reference and the checks in Verify.cpp, the cuBLAS
// comparison in CompareCublas.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_RUNTIME_RUN_H
#define VIBEGEMM_LIB_RUNTIME_RUN_H

#include "Device.h"
#include "LoadedPlan.h"
#include "Timing.h"
#include "vibegemm/Runtime/Cublas.h"
#include "vibegemm/Runtime/HostCheck.h"
#include "vibegemm/Runtime/PlanRunner.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::runtime::detail {

/// A buffer copied back to the host, with its element type.
struct HostElements {
  DType type = DType::F32;
  std::vector<uint8_t> bytes;

  ElementSpan span() const { return ElementSpan::of(type, bytes); }
};

/// One verification and timing of a plan.
class Run {
public:
  Run(const Plan &plan, const RunOptions &opts)
      : plan(plan), opts(opts), mem(session), modules(session) {}

  llvm::json::Object execute();

private:
  // PlanRunner.cpp: the order of the steps, loading and allocation.

  /// Charges the time since the previous lap to the phase that began there
  /// and starts `next`.
  void lap(llvm::StringRef next);
  Outcome go(llvm::json::Object &result);
  static llvm::json::Object timingJson(const Timing &t);
  Outcome load(LoadedPlan &loaded, const Plan &p);
  Outcome allocateGuarded(LoadedPlan &loaded, const PlanBuffer &b);
  Outcome allocate();
  /// Extra copies of every buffer, holding the same inputs, for timing
  /// runs that rotate through them.
  int addRotationSets(int wanted);

  // Verify.cpp: the reference, the runs it checks and the checks.

  Outcome chooseReference(llvm::json::Object &result);
  Outcome check(cuda::CUresult r, const std::string &what);
  /// Resets guards, writes the inputs (or poison) into `loaded`'s buffers.
  Outcome prepare(LoadedPlan &loaded, bool writeInputs);
  /// Runs `loaded` once on freshly poisoned outputs and waits.
  Outcome runOnce(LoadedPlan &loaded, const std::string &what);
  Outcome download(const GuardedBuffer &g, std::vector<uint8_t> &bytes);
  /// Guards of every buffer intact, inputs unchanged; fills `outputs` with
  /// the raw output bytes.
  Outcome inspect(LoadedPlan &loaded, const std::string &who,
                  std::map<std::string, std::vector<uint8_t>> &outputs);
  /// The reference's outputs, raw, by output name.
  Outcome computeReference(std::map<std::string, HostElements> &ref);
  /// The reference itself, against float64 on the CPU (plain GEMMs only).
  Outcome checkReferenceOnCpu(ElementSpan ref);
  /// The random values written to input `name`, as stored (empty where
  /// there is no such input).
  ElementSpan hostInput(const std::string &name) const;
  double toleranceFor(const PlanBuffer &out) const;
  Outcome verify(uint64_t seed, bool firstPass, llvm::json::Array &report);

  // CompareCublas.cpp.

  /// cuBLAS on the plan's GEMM, timed the same way.
  llvm::json::Value compareCublas();

  const Plan &plan;
  const RunOptions &opts;
  Session session;
  DeviceMemory mem;
  ModuleCache modules;
  std::optional<Plan> refPlan;
  LoadedPlan mainPlan, referencePlan;
  ReferenceMode referenceMode = ReferenceMode::None;
  Cublas *cublas = nullptr;
  cuda::CUdeviceptr cublasOut = 0;
  std::vector<BufferSet> sets;
  std::map<std::string, std::vector<uint8_t>> hostInputs;
  std::string referenceCpuCheck;
  llvm::json::Object phaseSeconds;
  std::string phase;
  std::chrono::steady_clock::time_point phaseStart;
};

} // namespace mlir::vibegemm::runtime::detail

#endif // VIBEGEMM_LIB_RUNTIME_RUN_H
