//===- Evaluate.cpp - Check, compile and measure one candidate ------------===//
//
// One candidate script: the allowlist check, a sandboxed child vibegemm-opt,
// apply and lower on a copy of the dispatch, ptxas, the launch plan, then a
// GPU measurement in a child vibegemm-run or a static estimate. Also the
// reference kernels that measurements are checked against.
//
//===----------------------------------------------------------------------===//

#include "Tuner.h"

#include "vibegemm/Runtime/Isolation.h"
#include "vibegemm/Runtime/PlanRunner.h"
#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/Target/CostModel.h"
#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Target/Ptxas.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;
namespace json = llvm::json;

namespace {
/// Memory limit on the child vibegemm-opt that applies an untrusted script
/// first (a candidate applies and lowers in about a second, well under
/// 1 GiB).
constexpr unsigned kSandboxMegabytes = 8192;

/// A script may use TF32 only as far as the user allowed: the kernel
/// rewrite marks the function with the precision it used (TF32 over
/// 3xTF32), so any change to the dispatch's mark is an overreach. Returns
/// why, or "".
std::string precisionOverreach(const std::optional<std::string> &allowed,
                               func::FuncOp applied) {
  auto used = applied->getAttrOfType<StringAttr>(kF32PrecisionAttr);
  if (!used || allowed == used.getValue().str())
    return "";
  return ("the script puts f32 operands on TF32 tensor cores (f32_precision "
          "= \"" +
          used.getValue() +
          "\"), which changes accuracy; this "
          "compile allows " +
          (allowed ? "f32_precision = \"" + *allowed + "\""
                   : std::string("IEEE f32 only (f32-precision=ieee)")))
      .str();
}
} // namespace

/// Asks `vibegemm-run --probe` (in a child) once whether a GPU is usable;
/// `probeAnswer` says which, or why not.
bool Tuner::probeGpu() {
  if (probed)
    return *probed;
  std::optional<std::string> found =
      runner.empty() ? vibegemm::runtime::findRunnerBeside(
                           nullptr, reinterpret_cast<void *>(&staticEstimateMs))
                     : std::optional<std::string>(runner);
  if (!found || !llvm::sys::fs::can_execute(*found)) {
    probeAnswer = runner.empty()
                      ? "vibegemm-run is not installed beside this tool"
                      : "runner " + runner + " is not executable";
    probed = false;
    return false;
  }
  runnerPath = *found;
  probed = vibegemm::runtime::probeGpuIsolated(runnerPath, probeAnswer);
  return *probed;
}

Measurement Tuner::setUpMeasurement() {
  Measurement m;
  if (measure == "off") {
    m.why = "measure=off";
    return m;
  }
  if (!probeGpu()) {
    m.why = probeAnswer;
    return m;
  }
  m.runner = runnerPath;
  m.enabled = true;
  m.device = probeAnswer;
  return m;
}

/// Candidates compiling at once when `jobs` is 0: one per core, and no
/// more than the available memory allows at 2 GiB each (a candidate's
/// sandboxed child and its in-process compile stay well under that).
static unsigned defaultJobs() {
  unsigned cores =
      std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  auto meminfo = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo");
  if (!meminfo)
    return cores;
  for (llvm::StringRef line : llvm::split((*meminfo)->getBuffer(), '\n')) {
    uint64_t kib = 0;
    if (line.consume_front("MemAvailable:") &&
        !line.trim().split(' ').first.getAsInteger(10, kib))
      return std::clamp<unsigned>(kib >> 21, 1, cores);
  }
  return cores;
}

/// The GPUs `devices=` selects among those visible ("" selects all), as
/// CUDA_VISIBLE_DEVICES entries a child can be given.
static FailureOr<std::vector<MeasureDevice>>
selectDevices(Location loc, StringRef devices,
              const std::vector<std::string> &names) {
  // The child must see the same GPU the parent calls `i`: an entry of
  // the parent's CUDA_VISIBLE_DEVICES, or the index itself.
  llvm::SmallVector<StringRef> visible;
  std::optional<std::string> env =
      llvm::sys::Process::GetEnv("CUDA_VISIBLE_DEVICES");
  if (env)
    StringRef(*env).split(visible, ',', -1, /*KeepEmpty=*/false);
  std::vector<unsigned> chosen;
  if (devices.empty() || devices == "all") {
    for (unsigned i = 0; i < names.size(); ++i)
      chosen.push_back(i);
  } else {
    for (StringRef item : llvm::split(devices, ',')) {
      unsigned i;
      if (item.trim().getAsInteger(10, i) || i >= names.size()) {
        emitError(loc, "devices=")
            << devices << ": '" << item << "' is not one of the "
            << names.size() << " visible GPUs (0 to " << names.size() - 1
            << ")";
        return failure();
      }
      if (!llvm::is_contained(chosen, i))
        chosen.push_back(i);
    }
  }
  std::vector<MeasureDevice> out;
  for (unsigned i : chosen) {
    if (names[i] != names[chosen.front()]) {
      // Timings on different models do not rank one schedule against
      // another.
      emitError(loc, "devices=")
          << devices << " mixes GPU models (" << names[chosen.front()]
          << " and " << names[i] << "); choose GPUs of one model";
      return failure();
    }
    std::string id =
        i < visible.size() ? visible[i].trim().str() : std::to_string(i);
    out.push_back({static_cast<unsigned>(out.size()), id, names[i]});
  }
  return out;
}

LogicalResult Tuner::setUpConcurrency(Location loc) {
  compileJobs = std::make_unique<Semaphore>(jobs ? jobs : defaultJobs());
  if (!measurement.enabled) {
    if (!devices.empty()) {
      emitError(loc, "devices=")
          << devices << " given, but candidates are not measured here: "
          << measurement.why;
      return failure();
    }
    return success();
  }
  std::vector<std::string> names;
  std::string whyNot;
  if (!vibegemm::runtime::listGpusIsolated(runnerPath, names, whyNot)) {
    emitError(loc, "cannot list the GPUs: ") << whyNot;
    return failure();
  }
  FailureOr<std::vector<MeasureDevice>> chosen =
      selectDevices(loc, devices, names);
  if (failed(chosen))
    return failure();
  deviceQueue = std::make_unique<DeviceQueue>(std::move(*chosen));
  return success();
}

/// Compiles a copy of `module` with the reference schedule; the copy
/// lives inside `module` only while the pipeline runs.
ReferenceArtifacts Tuner::buildReference(ModuleOp module) {
  ReferenceArtifacts out;
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  auto copy = cast<ModuleOp>(builder.clone(*module.getOperation()));
  // Failures here are reported as one warning, not as errors.
  ScopedDiagnosticHandler quiet(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && out.error.empty())
      out.error = d.str();
    return success();
  });
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addPass(createVibeGemmPreparePass());
  pm.addPass(createVibeGemmFormDispatchesPass());
  pm.addPass(createVibeGemmBucketDispatchesPass(bucketOptions()));
  pm.addPass(createVibeGemmWidenHalfSoftmaxPass());
  VibeGemmBuiltinSchedulePassOptions scheduleOptions;
  scheduleOptions.target = target;
  scheduleOptions.reference = true;
  pm.addPass(createVibeGemmBuiltinSchedulePass(scheduleOptions));
  pm.addPass(createVibeGemmApplySchedulesPass());
  buildLowerToPTXPipeline(pm, target);
  if (succeeded(runPipeline(pm, copy))) {
    auto ptxFile = [](StringRef moduleName) {
      return (moduleName.drop_back(strlen("_kernels")) + ".reference.ptx")
          .str();
    };
    for (func::FuncOp dispatch : getDispatches(copy)) {
      std::string name = dispatch.getSymName().str();
      auto binary = copy.lookupSymbol<gpu::BinaryOp>(name + "_kernels");
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(dispatch, target, ptxFile);
      if (!binary || failed(plan))
        continue;
      out.ptx[name] = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                          .getObject()
                          .getValue()
                          .str();
      out.plans[name] = std::move(*plan);
    }
    for (auto func : copy.getOps<func::FuncOp>()) {
      if (func->hasAttr(kDispatchAttr) || func.isExternal())
        continue;
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(func, target, ptxFile);
      if (succeeded(plan))
        out.plans[func.getSymName().str()] = std::move(*plan);
    }
  } else if (out.error.empty()) {
    out.error = "the reference pipeline failed";
  }
  copy.erase();
  return out;
}

/// Verifies and times one candidate in a child vibegemm-run on the first
/// free GPU of the run; `files` are written to a scratch directory first.
/// Records in `candidate` which GPU ran it and when.
json::Object
Tuner::measureCandidate(StringRef planName,
                        const std::map<std::string, std::string> &files,
                        const GemmProblem &problem, Candidate &candidate) {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("vibegemm-measure", dir))
    return json::Object{{"status", vibegemm::runtime::kStatusLoadError},
                        {"diagnostic", "cannot create a scratch directory"}};
  for (auto &[name, contents] : files)
    if (llvm::Error err = writeAtomically(dir, name, contents)) {
      llvm::sys::fs::remove_directories(dir);
      return json::Object{{"status", vibegemm::runtime::kStatusLoadError},
                          {"diagnostic", llvm::toString(std::move(err))}};
    }
  llvm::SmallString<256> planPath(dir);
  llvm::sys::path::append(planPath, planName);
  vibegemm::runtime::RunOptions options;
  options.timeoutSeconds = measureTimeout;
  // cuBLAS's time is the dispatch's, not the candidate's: timed once,
  // beside the built-in schedule. Timing it again with every candidate
  // added its own sustained load and timed runs to each one's GPU time.
  options.compareCublas = candidate.source == "builtin";
  if (problem.mRange)
    options.sizes["M"] = problem.m;
  json::Object result =
      deviceQueue->run<json::Object>([&](const MeasureDevice &device) {
        candidate.deviceOrdinal = device.ordinal;
        candidate.deviceName = device.name;
        candidate.measureStart = secondsSinceStart();
        json::Object r = vibegemm::runtime::runPlanIsolated(
            measurement.runner, planPath, options,
            std::max(3 * measureTimeout, measureTimeout + 120),
            device.visibleId);
        candidate.measureEnd = secondsSinceStart();
        return r;
      });
  llvm::sys::fs::remove_directories(dir);
  return result;
}

/// Folds a runner result into a report candidate.
void Tuner::recordMeasurement(Candidate &candidate, json::Object result) {
  StringRef status = result.getString("status").value_or("fault");
  namespace rt = vibegemm::runtime;
  bool kernelFailed = status == rt::kStatusWrongResult ||
                      status == rt::kStatusFault ||
                      status == rt::kStatusTimeout;
  if (status == rt::kStatusOk) {
    candidate.timeMs = result.getNumber("time_ms");
    candidate.tflops = result.getNumber("tflops");
    candidate.timing = "measured";
  } else if (kernelFailed || status == rt::kStatusLoadError) {
    // A driver that cannot load the PTX is the kernel's fault too.
    candidate.status =
        kernelFailed ? *parseCandidateStatus(status) : CandidateStatus::Fault;
    candidate.diagnostic = result.getString("diagnostic").value_or("").str();
  } else {
    candidate.measureError =
        (status + ": " + result.getString("diagnostic").value_or("")).str();
  }
  json::Object summary;
  for (const char *key :
       {"status", "reference", "reference_cpu_check", "seed", "timing",
        "outputs", "cublas", "device", "recheck", "launches"})
    if (json::Value *v = result.get(key))
      summary[key] = *v;
  candidate.measurement = std::move(summary);
}

/// Adds what vibegemm-run needs to a dispatch plan: FLOPs, the GEMM it
/// holds, and what checks it (cuBLAS for a plain GEMM, reference kernels
/// otherwise). The reference files go into `files`.
void Tuner::decoratePlan(json::Object &plan, const DispatchRecord &record,
                         std::map<std::string, std::string> &files) {
  plan["flops"] = planFlops(record.problem);
  if (record.gemm) {
    plan["gemm"] = json::Object(*record.gemm);
    if (record.plain) {
      json::Object ref = *record.gemm;
      ref["kind"] = "gemm";
      plan["reference"] = std::move(ref);
    }
  }
  addReferencePlan(plan, record.name, files);
}

/// Points `plan` at dispatch `name`'s reference plan, when one was built,
/// and adds that plan and its PTX to `files`.
void Tuner::addReferencePlan(json::Object &plan, const std::string &name,
                             std::map<std::string, std::string> &files) {
  auto refPlan = reference.plans.find(name);
  auto refPtx = reference.ptx.find(name);
  if (refPlan == reference.plans.end() || refPtx == reference.ptx.end())
    return;
  plan["reference_plan"] = name + ".reference.plan.json";
  files[name + ".reference.ptx"] = refPtx->second;
  files[name + ".reference.plan.json"] =
      formatJson(json::Value(json::Object(refPlan->second)));
}

/// What identifies the kernel a GPU runs: its PTX and its launch plan
/// (grid, launch mode, buffers), hashed as the tuning database keys it.
static std::string kernelHash(StringRef ptx, const json::Object &plan) {
  return hashText(ptx.str() + "\n" +
                  formatJson(json::Value(json::Object(plan))));
}

/// reuse-measurements: gives `candidate` the verified time the tuning
/// database holds for its kernel on this GPU, if any, and says whether it
/// did. The built-in schedule always runs, since it times cuBLAS.
bool Tuner::reuseMeasured(const DispatchRecord &record, Candidate &candidate) {
  if (!reuseMeasurements || !measurement.enabled || !tuningDB ||
      candidate.source == "builtin" || !candidate.kernelHash)
    return false;
  std::optional<vibegemm::TuningDB::PastResult> past =
      tuningDB->pastMeasurement(record.signature, target, measurement.device,
                                vibegemm::kSustainedClockTiming,
                                *candidate.kernelHash);
  if (!past)
    return false;
  candidate.timeMs = past->timeMs;
  candidate.tflops = past->tflops;
  candidate.timing = "measured";
  candidate.measuredInRun = past->runId;
  candidate.diagnostic =
      llvm::formatv("not run again: the same kernel ran in tuning run {0}",
                    past->runId)
          .str();
  return true;
}

/// Checks, applies, lowers and (where possible) measures one script on a
/// copy of `dispatch`; returns `candidate` filled in as a report entry.
/// Applies and lowers `work` (a dispatch and its schedule) in a child
/// vibegemm-opt first, under a time and memory limit, so an untrusted
/// script that crashes the compiler, runs away or exhausts memory (upstream
/// transforms trust their inputs) fails a candidate rather than the
/// compile. Returns why the child died, or "" (also where no vibegemm-opt
/// is installed beside this code: then the script runs here unguarded).
std::string Tuner::sandboxRun(ModuleOp work) {
  static const std::optional<std::string> tool =
      vibegemm::runtime::findToolBeside(
          "vibegemm-opt", nullptr, reinterpret_cast<void *>(&staticEstimateMs));
  if (!tool)
    return "";
  llvm::SmallString<128> input;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("vibegemm-candidate", "mlir", fd,
                                         input))
    return "";
  llvm::FileRemover removeInput(input);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    work->print(os);
  }
  std::string lower = "--vibegemm-lower-to-ptx=target=" + target;
  if (programmaticLaunch)
    lower += " programmatic-launch=true";
  llvm::StringRef args[] = {
      *tool, input, "--vibegemm-apply-schedules=expensive-checks=true",
      lower, "-o",  "/dev/null"};
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(""), llvm::StringRef("")};
  std::string errMsg;
  int rc =
      llvm::sys::ExecuteAndWait(*tool, args, std::nullopt, redirects,
                                sandboxTimeout, kSandboxMegabytes, &errMsg);
  // 0 and 1 (an ordinary error, reported again when it runs here) pass.
  if (rc == 0 || rc == 1)
    return "";
  return llvm::formatv("the script killed a sandboxed vibegemm-opt "
                       "applying and lowering it (limits {0} s, {1} MiB; "
                       "exit {2}{3})",
                       static_cast<unsigned>(sandboxTimeout), kSandboxMegabytes,
                       rc, errMsg.empty() ? "" : ": " + errMsg)
      .str();
}

Candidate Tuner::evaluateScript(const DispatchRecord &record, StringRef script,
                                Candidate candidate) {
  double roofline = rooflineMs(record.problem, *info);
  candidate.scriptHash = hashScript(*registry, script);
  candidate.status = CandidateStatus::Ok;
  candidate.diagnostic = "";
  candidate.evaluated = true;
  candidate.timeMs = candidate.tflops = std::nullopt;
  candidate.timing = "estimated";
  candidate.rooflineMs = roofline;
  auto failWith = [&](CandidateStatus status, std::string diagnostic) {
    candidate.status = status;
    candidate.diagnostic = std::move(diagnostic);
    return std::move(candidate);
  };

  // The compile work (parsing, the sandboxed child, the pipelines, ptxas)
  // is bounded by cores and memory; the measurement waits for a GPU.
  std::optional<Semaphore::Hold> compiling(std::in_place, *compileJobs);
  // A context of this candidate's own, so candidates compile on threads
  // of their own without sharing IR or diagnostics.
  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  ScriptCheck check = checkScript(&ctx, script, allowlist);
  if (std::optional<CandidateStatus> checked =
          parseCandidateStatus(check.status);
      !checked || *checked != CandidateStatus::Ok)
    return failWith(checked.value_or(CandidateStatus::ParseError),
                    check.diagnostic);

  // A private copy of the dispatch, alone in its module.
  OwningOpRef<ModuleOp> owned =
      parseSourceString<ModuleOp>(record.workText, &ctx);
  if (!owned)
    return failWith(CandidateStatus::ApplyError,
                    "the dispatch did not parse back (a vibegemm bug)");
  ModuleOp work = *owned;
  auto copy = work.lookupSymbol<func::FuncOp>(record.name);
  std::string firstError;
  std::optional<CandidateStatus> status;
  {
    ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
        firstError = d.str();
      return success();
    });
    PassManager apply(&ctx, ModuleOp::getOperationName());
    VibeGemmApplySchedulesPassOptions applyOptions;
    applyOptions.expensiveChecks = true; // the script is untrusted
    apply.addPass(createVibeGemmApplySchedulesPass(applyOptions));
    PassManager lower(&ctx, ModuleOp::getOperationName());
    buildLowerToPTXPipeline(lower, target, /*optLevel=*/3, programmaticLaunch);
    bool untrusted = candidate.source != "builtin";
    if (failed(attachSchedule(copy, script)))
      status = CandidateStatus::ParseError;
    else if (std::string crash = untrusted ? sandboxRun(work) : "";
             !crash.empty()) {
      status = CandidateStatus::ApplyError;
      firstError = crash;
    } else if (failed(apply.run(work)))
      status = CandidateStatus::ApplyError;
    else if (std::string why =
                 precisionOverreach(record.allowedPrecision, copy);
             !why.empty()) {
      status = CandidateStatus::ApplyError;
      firstError = why;
    } else if (failed(lower.run(work)))
      status = CandidateStatus::LoweringError;
  }
  std::string ptx;
  FailureOr<json::Object> plan = failure();
  if (!status) {
    auto binary = work.lookupSymbol<gpu::BinaryOp>(record.name + "_kernels");
    if (binary)
      ptx = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                .getObject()
                .getValue()
                .str();
    ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &d) {
      if (firstError.empty())
        firstError = d.str();
      return success();
    });
    plan = vibegemm::buildLaunchPlan(
        work.lookupSymbol<func::FuncOp>(record.name), target, [](StringRef m) {
          return (m.drop_back(strlen("_kernels")) + ".ptx").str();
        });
    if (!binary || failed(plan))
      status = CandidateStatus::LoweringError;
  }
  if (status) {
    // "the parse step failed", after the status's first word.
    StringRef step = stringifyCandidateStatus(*status).split('-').first;
    return failWith(*status, firstError.empty()
                                 ? ("the " + step + " step failed").str()
                                 : firstError);
  }

  std::vector<vibegemm::KernelResources> kernels;
  if (ptxasPath) {
    vibegemm::PtxasResult checked =
        vibegemm::runPtxas(*ptxasPath, ptx, info->chip);
    if (!checked.accepted)
      return failWith(CandidateStatus::PtxasError,
                      checked.log.empty() ? "ptxas failed without a message"
                                          : checked.log.substr(0, 2000));
    kernels = checked.kernels;
    candidate.resources = vibegemm::resourcesToJson(kernels);
    // ptxas accepts more static shared memory than a launch can get.
    for (const vibegemm::KernelResources &k : kernels)
      if (k.sharedBytes > info->staticSharedBytesPerBlock)
        return failWith(CandidateStatus::PtxasError,
                        llvm::formatv("kernel {0} uses {1} bytes of static "
                                      "shared memory; {2} allows {3}",
                                      k.kernel, k.sharedBytes, info->name,
                                      info->staticSharedBytesPerBlock));
  } else {
    candidate.ptxasMissing = true;
  }
  candidate.dynamicSharedBytes = dynamicSharedBytes(*plan);
  std::vector<LaunchFit> fits = launchFits(*plan, kernels, *info);
  candidate.launchFit = describeLaunchFits(fits);
  candidate.estimatedMs = staticEstimateMs(roofline, fits, *info);
  candidate.kernelHash = kernelHash(ptx, *plan);
  if (reuseMeasured(record, candidate))
    return std::move(candidate);
  bool keep = keepCandidates && !artifactsDir.empty();
  if (measurement.enabled || keep) {
    std::map<std::string, std::string> files;
    decoratePlan(*plan, record, files);
    files[record.name + ".ptx"] = ptx;
    files[record.name + ".plan.json"] =
        formatJson(json::Value(std::move(*plan)));
    if (keep) {
      files[record.name + ".schedule.mlir"] = script.str();
      keepCandidateFiles(candidate, record, files);
    }
    compiling.reset();
    if (measurement.enabled)
      recordMeasurement(candidate,
                        measureCandidate(record.name + ".plan.json", files,
                                         record.problem, candidate));
  }
  return std::move(candidate);
}

/// keep-candidates: the candidate's `files` in a directory of its own
/// under the artifacts, named in the report as "files" (or why not as
/// "files_error": a copy kept for inspection does not fail the run).
void Tuner::keepCandidateFiles(
    Candidate &candidate, const DispatchRecord &record,
    const std::map<std::string, std::string> &files) {
  std::string relative =
      llvm::formatv("candidates/{0}-{1}", record.name, candidate.index).str();
  llvm::SmallString<256> dir(artifactsDir);
  llvm::sys::path::append(dir, relative);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    candidate.filesError = ("cannot create " + dir + ": " + ec.message()).str();
    return;
  }
  for (auto &[name, contents] : files)
    if (llvm::Error err = writeAtomically(dir, name, contents)) {
      candidate.filesError = llvm::toString(std::move(err));
      return;
    }
  candidate.files = relative;
}
