//===- LLMSchedule.cpp - The user entry: schedule and compile to PTX ------===//
//
// Chains dispatch formation, scheduling, schedule application and lowering,
// checks each kernel with ptxas, measures it on the GPU when one is present
// (in a child vibegemm-run) and writes the artifacts directory. The LLM
// loop itself is not built yet; with or without an endpoint the built-in
// scheduler writes the schedules, and stderr says so.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"
#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Target/Ptxas.h"
#include "vibegemm/Target/TargetInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"
#include "vibegemm/Runtime/Isolation.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <map>

namespace mlir::vibegemm {
#define GEN_PASS_DEF_LLMSCHEDULEPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;
namespace json = llvm::json;

namespace {

/// What the run learned about one dispatch, for report.json.
struct DispatchRecord {
  std::string name, signature, schedule;
  GemmProblem problem;
  /// The built-in scheduler's choice, so users see which schedule ran and
  /// why (the script's own comments do not survive parsing).
  vibegemm::SimtTiling tiling;
  /// The GEMM over plan buffers, for cuBLAS; `plain` when it is the whole
  /// dispatch, so cuBLAS can check it.
  std::optional<json::Object> gemm;
  bool plain = false;
};

/// The same module compiled with the reference schedule.
struct ReferenceArtifacts {
  std::map<std::string, std::string> ptx;    // dispatch -> PTX
  std::map<std::string, json::Object> plans; // dispatch or function -> plan
  std::string error;
};

/// How candidates are measured in this run.
struct Measurement {
  bool enabled = false;
  std::string runner, device, why;
};

/// Buffer name of a dispatch argument in launch plans ("arg<i>").
std::optional<std::string> planArgName(func::FuncOp dispatch, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &dispatch.front())
    return std::nullopt;
  return "arg" + std::to_string(arg.getArgNumber());
}

/// Describes the dispatch's GEMM over plan buffers when its operands are
/// dispatch inputs and its single result has the GEMM's shape. `plain` is
/// set when the result is the GEMM itself on a zero-filled accumulator.
std::optional<json::Object> describeGemm(func::FuncOp dispatch,
                                         const GemmProblem &p, bool &plain) {
  plain = false;
  linalg::LinalgOp root = vibegemm::getDispatchRoot(dispatch);
  if (!root || root.getNumDpsInputs() != 2 || dispatch.getNumResults() != 1)
    return std::nullopt;
  std::optional<std::string> a =
      planArgName(dispatch, root.getDpsInputOperand(0)->get());
  std::optional<std::string> b =
      planArgName(dispatch, root.getDpsInputOperand(1)->get());
  auto result = dyn_cast<RankedTensorType>(dispatch.getResultTypes()[0]);
  if (!a || !b || !result || result.getNumElements() != p.batch * p.m * p.n)
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(dispatch.front().getTerminator());
  auto fill = root.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  plain = p.epilogueOps == 0 && !p.hasSoftmax &&
          ret.getOperand(0) == root->getResult(0) && fill &&
          (matchPattern(fill.value(), m_AnyZeroFloat()) ||
           matchPattern(fill.value(), m_Zero()));
  return json::Object{{"batch", p.batch},
                      {"m", p.m},
                      {"n", p.n},
                      {"k", p.k},
                      {"a", *a},
                      {"b", *b},
                      {"c", "res0"},
                      {"transpose_a", p.transposeA},
                      {"transpose_b", p.transposeB}};
}

/// A static estimate for unmeasured candidates: the roofline, worsened by
/// spills (local-memory traffic in the inner loop).
double staticEstimateMs(double rooflineMs,
                        const std::vector<vibegemm::KernelResources> &ks) {
  double factor = 1.0;
  for (const vibegemm::KernelResources &k : ks)
    if (k.spillStoreBytes + k.spillLoadBytes > 0)
      factor = std::max(factor, 2.0);
  return rooflineMs * factor;
}

std::string hashText(StringRef text) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  return s;
}

/// Writes `contents` to `dir/name` through a temporary file and a rename,
/// so a reader never sees a half-written artifact.
LogicalResult writeArtifact(Location loc, StringRef dir, StringRef name,
                            StringRef contents) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  if (llvm::Error err = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << contents;
        return llvm::Error::success();
      }))
    return emitError(loc, "cannot write ")
           << path << ": " << llvm::toString(std::move(err));
  return success();
}

/// Roofline lower bound in milliseconds: FLOPs over peak, or bytes over
/// bandwidth, whichever is larger.
double rooflineMs(const GemmProblem &p, const vibegemm::TargetInfo &t) {
  auto bytes = [](Type type) {
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  };
  double moved = p.batch * (double(p.m) * p.k * bytes(p.lhsType) +
                            double(p.k) * p.n * bytes(p.rhsType) +
                            double(p.m) * p.n * bytes(p.resultType));
  double peak = p.lhsType.isF32() ? t.peakFp32Tflops : t.peakBf16Tflops;
  double computeMs = p.flops() / (peak * 1e12) * 1e3;
  double memoryMs = moved / (t.dramGBps * 1e9) * 1e3;
  return std::max(computeMs, memoryMs);
}

class LLMSchedulePass
    : public vibegemm::impl::LLMSchedulePassBase<LLMSchedulePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const vibegemm::TargetInfo *info =
        vibegemm::lookupTargetOrEmitError(target, module.getLoc());
    if (!info)
      return signalPassFailure();
    if (measure != "auto" && measure != "on" && measure != "off") {
      emitError(module.getLoc(), "measure must be auto, on or off, not '")
          << measure << "'";
      return signalPassFailure();
    }
    measurement = setUpMeasurement();
    if (measure == "on" && !measurement.enabled) {
      emitError(module.getLoc(), "measure=on, but candidates cannot be "
                                 "measured here: ")
          << measurement.why;
      return signalPassFailure();
    }
    // Reference kernels come from an untouched copy of the input.
    ReferenceArtifacts reference = buildReference(module);
    if (!reference.error.empty())
      module.emitWarning("reference kernels could not be built, so only "
                         "cuBLAS can check these kernels: ")
          << reference.error;
    std::string llmEndpoint = endpoint;
    if (llmEndpoint.empty())
      llmEndpoint =
          llvm::sys::Process::GetEnv("VIBEGEMM_LLM_ENDPOINT").value_or("");
    // Form dispatches and schedule them.
    OpPassManager front(ModuleOp::getOperationName());
    front.addPass(createVibeGemmFormDispatchesPass());
    front.addPass(createVibeGemmBuiltinSchedulePass({target}));
    if (failed(runPipeline(front, module)))
      return signalPassFailure();

    ModuleOp schedules = getSchedulesModule(module, /*create=*/false);
    std::vector<DispatchRecord> records;
    for (func::FuncOp dispatch : getDispatches(module)) {
      DispatchRecord record;
      record.name = dispatch.getSymName().str();
      record.signature =
          dispatch->getAttrOfType<StringAttr>(kSignatureAttr).str();
      record.schedule = vibegemm::wrapForReplay(
          printSchedule(dispatch, schedules), record.name, record.name);
      record.problem = *getGemmProblem(dispatch);
      record.tiling = vibegemm::chooseSimtTiling(record.problem, *info);
      record.gemm = describeGemm(dispatch, record.problem, record.plain);
      records.push_back(std::move(record));
    }

    OpPassManager back(ModuleOp::getOperationName());
    back.addPass(createVibeGemmApplySchedulesPass());
    back.addPass(createVibeGemmLowerToPTXPass({target, 3}));
    if (failed(runPipeline(back, module)))
      return signalPassFailure();

    if (failed(checkAndWrite(module, *info, records, reference)))
      return signalPassFailure();
    if (llmEndpoint.empty())
      llvm::errs() << "vibegemm: no LLM endpoint configured; the built-in "
                      "scheduler ran\n";
    else
      llvm::errs() << "vibegemm: LLM scheduling is not built yet; the "
                      "built-in scheduler ran instead of "
                   << llmEndpoint << "\n";
  }

private:
  Measurement setUpMeasurement() {
    Measurement m;
    if (measure == "off") {
      m.why = "measure=off";
      return m;
    }
    std::optional<std::string> found =
        runner.empty()
            ? vibegemm::runtime::findRunnerBeside(
                  nullptr, reinterpret_cast<void *>(&staticEstimateMs))
            : std::optional<std::string>(runner);
    if (!found || !llvm::sys::fs::can_execute(*found)) {
      m.why = runner.empty() ? "vibegemm-run is not installed beside this tool"
                             : "runner " + runner + " is not executable";
      return m;
    }
    m.runner = *found;
    std::string answer;
    if (!vibegemm::runtime::probeGpuIsolated(m.runner, answer)) {
      m.why = answer;
      return m;
    }
    m.enabled = true;
    m.device = answer;
    return m;
  }

  /// Compiles a copy of `module` with the reference schedule; the copy
  /// lives inside `module` only while the pipeline runs.
  ReferenceArtifacts buildReference(ModuleOp module) {
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
    pm.addPass(createVibeGemmFormDispatchesPass());
    VibeGemmBuiltinSchedulePassOptions scheduleOptions;
    scheduleOptions.target = target;
    scheduleOptions.reference = true;
    pm.addPass(createVibeGemmBuiltinSchedulePass(scheduleOptions));
    pm.addPass(createVibeGemmApplySchedulesPass());
    pm.addPass(createVibeGemmLowerToPTXPass({target, 3}));
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

  /// Verifies and times one candidate in a child vibegemm-run; `files` are
  /// written to a scratch directory first.
  json::Object measureCandidate(
      StringRef planName, const std::map<std::string, std::string> &files) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("vibegemm-measure", dir))
      return json::Object{{"status", vibegemm::runtime::kStatusLoadError},
                          {"diagnostic", "cannot create a scratch directory"}};
    for (auto &[name, contents] : files)
      if (failed(writeArtifact(getOperation().getLoc(), dir, name, contents)))
        return json::Object{{"status", vibegemm::runtime::kStatusLoadError},
                            {"diagnostic", "cannot write to " + std::string(dir)}};
    llvm::SmallString<256> planPath(dir);
    llvm::sys::path::append(planPath, planName);
    vibegemm::runtime::RunOptions options;
    options.timeoutSeconds = measureTimeout;
    options.compareCublas = true;
    json::Object result = vibegemm::runtime::runPlanIsolated(
        measurement.runner, planPath, options,
        std::max(3 * measureTimeout, measureTimeout + 120));
    llvm::sys::fs::remove_directories(dir);
    return result;
  }

  /// Folds a runner result into a report candidate.
  static void recordMeasurement(json::Object &candidate, json::Object result) {
    StringRef status = result.getString("status").value_or("fault");
    namespace rt = vibegemm::runtime;
    bool kernelFailed = status == rt::kStatusWrongResult ||
                        status == rt::kStatusFault ||
                        status == rt::kStatusTimeout;
    if (status == rt::kStatusOk) {
      candidate["time_ms"] = result.getNumber("time_ms")
                                 ? json::Value(*result.getNumber("time_ms"))
                                 : json::Value(nullptr);
      candidate["tflops"] = result.getNumber("tflops")
                                ? json::Value(*result.getNumber("tflops"))
                                : json::Value(nullptr);
      candidate["timing"] = "measured";
    } else if (kernelFailed || status == rt::kStatusLoadError) {
      // A driver that cannot load the PTX is the kernel's fault too.
      candidate["status"] = kernelFailed ? status.str() : rt::kStatusFault;
      candidate["diagnostic"] = result.getString("diagnostic").value_or("").str();
    } else {
      candidate["measure_error"] =
          (status + ": " + result.getString("diagnostic").value_or(""))
              .str();
    }
    json::Object summary;
    for (const char *key : {"status", "reference", "reference_cpu_check",
                            "seed", "timing", "outputs", "cublas", "device",
                            "recheck"})
      if (json::Value *v = result.get(key))
        summary[key] = *v;
    candidate["measurement"] = std::move(summary);
  }

  LogicalResult checkAndWrite(ModuleOp module, const vibegemm::TargetInfo &info,
                              std::vector<DispatchRecord> &records,
                              ReferenceArtifacts &reference) {
    std::optional<std::string> ptxasPath = vibegemm::findPtxas(ptxas);
    if (!ptxas.empty() && !ptxasPath)
      return emitError(module.getLoc(), "ptxas not found at ") << ptxas;

    std::map<std::string, std::string> files; // name -> contents
    auto ptxFile = [](StringRef moduleName) {
      return (moduleName.drop_back(strlen("_kernels")) + ".ptx").str();
    };

    json::Array dispatches;
    for (DispatchRecord &record : records) {
      auto binary =
          module.lookupSymbol<gpu::BinaryOp>(record.name + "_kernels");
      if (!binary)
        return emitError(module.getLoc(), "no gpu.binary for dispatch ")
               << record.name;
      std::string ptx = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                            .getObject()
                            .getValue()
                            .str();
      json::Object candidate{
          {"index", 0},
          {"source", "builtin"},
          {"round", 0},
          {"script_hash", hashText(record.schedule)},
          {"status", "ok"},
          {"diagnostic", ""},
          {"time_ms", nullptr},
          {"tflops", nullptr},
          {"timing", "estimated"},
          {"roofline_ms", rooflineMs(record.problem, info)}};
      std::vector<vibegemm::KernelResources> kernels;
      if (ptxasPath) {
        vibegemm::PtxasResult checked =
            vibegemm::runPtxas(*ptxasPath, ptx, info.chip);
        if (!checked.accepted)
          return emitError(module.getLoc(),
                           "ptxas rejected the PTX of dispatch ")
                 << record.name << ":\n"
                 << checked.log;
        kernels = checked.kernels;
        json::Object resources = vibegemm::resourcesToJson(checked.kernels);
        for (auto &kv : resources)
          candidate[kv.first] = std::move(kv.second);
      } else {
        candidate["ptxas"] = "not found; resources unknown";
      }
      candidate["estimated_ms"] =
          staticEstimateMs(rooflineMs(record.problem, info), kernels);

      auto dispatchFunc = module.lookupSymbol<func::FuncOp>(record.name);
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(dispatchFunc, target, ptxFile);
      if (failed(plan))
        return failure();
      (*plan)["flops"] = record.problem.flops();
      if (record.gemm) {
        (*plan)["gemm"] = json::Object(*record.gemm);
        if (record.plain) {
          json::Object ref = *record.gemm;
          ref["kind"] = "gemm";
          (*plan)["reference"] = std::move(ref);
        }
      }
      std::map<std::string, std::string> planFiles;
      auto refPlan = reference.plans.find(record.name);
      if (refPlan != reference.plans.end() &&
          reference.ptx.count(record.name)) {
        (*plan)["reference_plan"] = record.name + ".reference.plan.json";
        planFiles[record.name + ".reference.ptx"] =
            reference.ptx[record.name];
        planFiles[record.name + ".reference.plan.json"] =
            formatJson(json::Value(json::Object(refPlan->second)));
      }
      planFiles[record.name + ".ptx"] = ptx;
      planFiles[record.name + ".plan.json"] =
          formatJson(json::Value(std::move(*plan)));
      if (measurement.enabled) {
        recordMeasurement(candidate, measureCandidate(record.name + ".plan.json",
                                                      planFiles));
        // Never hand out a kernel the GPU just showed to be wrong.
        StringRef status = *candidate.getString("status");
        if (status != "ok")
          return emitError(dispatchFunc.getLoc(), "dispatch ")
                 << record.name << ": no candidate passed verification on "
                 << measurement.device << " (" << status << ": "
                 << candidate.getString("diagnostic").value_or("")
                 << "); this is a vibegemm bug, please report it "
                    "(measure=off skips the check)";
      }
      files.insert(planFiles.begin(), planFiles.end());
      files[record.name + ".schedule.mlir"] = record.schedule;

      const GemmProblem &p = record.problem;
      json::Array candidates;
      candidates.push_back(std::move(candidate));
      dispatches.push_back(json::Object{
          {"name", record.name},
          {"signature", record.signature},
          {"problem", json::Object{{"batch", p.batch},
                                   {"m", p.m},
                                   {"n", p.n},
                                   {"k", p.k},
                                   {"dtypes", p.dtypeString()},
                                   {"transpose_a", p.transposeA},
                                   {"transpose_b", p.transposeB},
                                   {"fused_consumers", p.epilogueOps},
                                   {"flops", p.flops()}}},
          {"builtin_schedule",
           json::Object{
               {"kind", record.tiling.staged ? "staged" : "direct"},
               {"why_not_staged",
                record.tiling.staged
                    ? json::Value(nullptr)
                    : json::Value(record.tiling.fallbackReason)},
               {"block", json::Array{record.tiling.blockM, record.tiling.blockN,
                                     record.tiling.blockK}},
               {"thread",
                json::Array{record.tiling.threadM, record.tiling.threadN}},
               {"split_m", record.tiling.splitM},
               {"split_n", record.tiling.splitN}}},
          {"winner", 0},
          {"candidates", std::move(candidates)}});
    }

    // Functions that call several dispatches get a whole-function plan.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr(kDispatchAttr) || func.isExternal())
        continue;
      int calls = 0;
      double flops = 0;
      func.walk([&](func::CallOp call) {
        ++calls;
        for (const DispatchRecord &r : records)
          if (r.name == call.getCallee())
            flops += r.problem.flops();
      });
      if (calls < 2)
        continue;
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(func, target, ptxFile);
      if (failed(plan))
        return failure();
      (*plan)["flops"] = flops;
      std::string fname = func.getSymName().str();
      if (reference.plans.count(fname)) {
        (*plan)["reference_plan"] = fname + ".reference.plan.json";
        files[fname + ".reference.plan.json"] =
            formatJson(json::Value(std::move(reference.plans[fname])));
      }
      files[fname + ".plan.json"] = formatJson(json::Value(std::move(*plan)));
    }

    std::string dbPath = db;
    if (dbPath.empty())
      dbPath = llvm::sys::Process::GetEnv("VIBEGEMM_DB").value_or("");
    json::Object report{
        {"version", 1},
        {"target", target},
        {"scheduler", "builtin"},
        {"measure",
         json::Object{
             {"requested", measure},
             {"measured", measurement.enabled},
             {"device", measurement.enabled ? json::Value(measurement.device)
                                            : json::Value(nullptr)},
             {"reason", measurement.enabled
                            ? json::Value(nullptr)
                            : json::Value(measurement.why +
                                          "; times are static estimates")}}},
        {"toolchain", json::Object{{"llvm", LLVM_VERSION_STRING}}},
        {"ptxas", ptxasPath ? json::Value(*ptxasPath) : json::Value(nullptr)},
        {"db", dbPath.empty() ? json::Value(nullptr) : json::Value(dbPath)},
        {"dispatches", std::move(dispatches)}};
    files["report.json"] = formatJson(json::Value(std::move(report)));

    if (artifactsDir.empty())
      return success();
    if (std::error_code ec = llvm::sys::fs::create_directories(artifactsDir))
      return emitError(module.getLoc(), "cannot create artifacts directory ")
             << artifactsDir << ": " << ec.message();
    for (auto &[name, contents] : files)
      if (failed(writeArtifact(module.getLoc(), artifactsDir, name, contents)))
        return failure();
    return success();
  }

  Measurement measurement;

  static std::string formatJson(const json::Value &value) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::formatv("{0:2}", value) << "\n";
    return s;
  }
};

} // namespace
