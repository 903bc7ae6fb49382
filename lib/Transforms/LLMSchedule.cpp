//===- LLMSchedule.cpp - The user entry: schedule and compile to PTX ------===//
//
// Chains dispatch formation, scheduling, schedule application and lowering,
// checks each kernel with ptxas and writes the artifacts directory. The LLM
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
};

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
    if (measure == "on") {
      emitError(module.getLoc(),
                "measure=on needs the GPU runtime, which this build "
                "of vibegemm does not include yet; use measure=auto "
                "or measure=off");
      return signalPassFailure();
    }
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
      records.push_back(std::move(record));
    }

    OpPassManager back(ModuleOp::getOperationName());
    back.addPass(createVibeGemmApplySchedulesPass());
    back.addPass(createVibeGemmLowerToPTXPass({target, 3}));
    if (failed(runPipeline(back, module)))
      return signalPassFailure();

    if (failed(checkAndWrite(module, *info, records)))
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
  LogicalResult checkAndWrite(ModuleOp module, const vibegemm::TargetInfo &info,
                              std::vector<DispatchRecord> &records) {
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
          {"estimated_ms", rooflineMs(record.problem, info)}};
      if (ptxasPath) {
        vibegemm::PtxasResult checked =
            vibegemm::runPtxas(*ptxasPath, ptx, info.chip);
        if (!checked.accepted)
          return emitError(module.getLoc(),
                           "ptxas rejected the PTX of dispatch ")
                 << record.name << ":\n"
                 << checked.log;
        json::Object resources = vibegemm::resourcesToJson(checked.kernels);
        for (auto &kv : resources)
          candidate[kv.first] = std::move(kv.second);
      } else {
        candidate["ptxas"] = "not found; resources unknown";
      }

      auto dispatchFunc = module.lookupSymbol<func::FuncOp>(record.name);
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(dispatchFunc, target, ptxFile);
      if (failed(plan))
        return failure();
      (*plan)["flops"] = record.problem.flops();
      files[record.name + ".ptx"] = ptx;
      files[record.name + ".schedule.mlir"] = record.schedule;
      files[record.name + ".plan.json"] =
          formatJson(json::Value(std::move(*plan)));

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
      files[func.getSymName().str() + ".plan.json"] =
          formatJson(json::Value(std::move(*plan)));
    }

    std::string dbPath = db;
    if (dbPath.empty())
      dbPath = llvm::sys::Process::GetEnv("VIBEGEMM_DB").value_or("");
    json::Object report{
        {"version", 1},
        {"target", target},
        {"scheduler", "builtin"},
        {"measure", json::Object{{"requested", measure},
                                 {"measured", false},
                                 {"reason", "this build has no GPU runtime; "
                                            "times are roofline estimates"}}},
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

  static std::string formatJson(const json::Value &value) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::formatv("{0:2}", value) << "\n";
    return s;
  }
};

} // namespace
