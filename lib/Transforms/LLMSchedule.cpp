//===- LLMSchedule.cpp - The user entry: schedule and compile to PTX ------===//
//
// Chains dispatch formation, scheduling, schedule application and lowering.
// Every dispatch gets candidates: the built-in schedule first, then, with an
// endpoint, LLM-written scripts over several rounds. Each candidate is
// checked (allowlist, apply, lower, ptxas), measured on the GPU when one is
// present (in a child vibegemm-run) or estimated, and the best one is
// compiled. Writes the artifacts directory and report.json/report.html.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/LLM/ChatClient.h"
#include "vibegemm/LLM/ResponseCache.h"
#include "vibegemm/Runtime/Isolation.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"
#include "vibegemm/Scheduler/LLMPrompts.h"
#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Target/Ptxas.h"
#include "vibegemm/Target/TargetInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/Transforms/Schedules.h"
#include "vibegemm/TuningDB/TuningDB.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <limits>
#include <map>

namespace mlir::vibegemm {
#define GEN_PASS_DEF_LLMSCHEDULEPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;
namespace json = llvm::json;
namespace llm = mlir::vibegemm::llm;

namespace {
/// Memory limit on the child vibegemm-opt that applies an untrusted script
/// first (a candidate applies and lowers in about a second, well under
/// 1 GiB).
constexpr unsigned kSandboxMegabytes = 8192;

/// A script may use TF32 only as far as the user allowed: the kernel
/// rewrite marks the function with the precision it used (TF32 over
/// 3xTF32), so any change to the dispatch's mark is an overreach. Returns
/// why, or "".
std::string precisionOverreach(func::FuncOp dispatch, func::FuncOp applied) {
  auto allowed = dispatch->getAttrOfType<StringAttr>(kF32PrecisionAttr);
  auto used = applied->getAttrOfType<StringAttr>(kF32PrecisionAttr);
  if (!used || allowed == used)
    return "";
  return ("the script puts f32 operands on TF32 tensor cores (f32_precision "
          "= \"" + used.getValue() + "\"), which changes accuracy; this "
          "compile allows " +
          (allowed ? "f32_precision = \"" + allowed.getValue().str() + "\""
                   : std::string("IEEE f32 only (f32-precision=ieee)")))
      .str();
}
} // namespace

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
  /// Every candidate tried, as report.json entries; the winner's index and
  /// script (a named sequence).
  json::Array candidates;
  /// The script of each candidate ("" where there was none).
  std::vector<std::string> scripts;
  size_t winner = 0;
  /// The LLM candidate that ranked best on static estimates alone, when no
  /// GPU verified it: it guided the prompts but does not ship.
  std::optional<size_t> unverifiedBest;
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

/// The most dynamic shared memory any launch of `plan` asks for (ptxas
/// reports only the static part).
int64_t dynamicSharedBytes(const json::Object &plan) {
  int64_t most = 0;
  if (const json::Array *launches = plan.getArray("launches"))
    for (const json::Value &l : *launches)
      if (const json::Object *launch = l.getAsObject())
        most = std::max(most, launch->getInteger("shared_bytes").value_or(0));
  return most;
}

/// A static estimate for unmeasured candidates: the roofline, divided by
/// how well each launch fills the GPU (waves of resident blocks, limited by
/// registers, threads and shared memory, and warps per SM), and doubled
/// when ptxas reports spills. Crude: only measurements rank candidates
/// reliably.
double staticEstimateMs(double rooflineMs, const json::Object &plan,
                        const std::vector<vibegemm::KernelResources> &ks,
                        const vibegemm::TargetInfo &t) {
  double worst = 1.0;
  const json::Array *launches = plan.getArray("launches");
  for (const json::Value &l : launches ? *launches : json::Array()) {
    const json::Object *launch = l.getAsObject();
    if (!launch)
      continue;
    auto product = [&](StringRef key) {
      int64_t p = 1;
      if (const json::Array *dims = launch->getArray(key))
        for (const json::Value &d : *dims)
          p *= d.getAsInteger().value_or(1);
      return p;
    };
    int64_t blocks = product("grid"), threads = product("block");
    StringRef kernel = launch->getString("kernel").value_or("");
    int64_t regs = 32, shared = launch->getInteger("shared_bytes").value_or(0);
    bool spills = false;
    for (const vibegemm::KernelResources &k : ks)
      if (k.kernel == kernel) {
        regs = std::max(k.registers, 1);
        shared += k.sharedBytes;
        spills = k.spillStoreBytes + k.spillLoadBytes > 0;
      }
    int64_t perSm = std::min<int64_t>(
        {32, 2048 / std::max<int64_t>(threads, 1),
         t.registersPerSm / std::max<int64_t>(regs * threads, 1),
         shared > 0 ? t.maxSharedBytesPerBlock / shared : 32});
    perSm = std::max<int64_t>(perSm, 1);
    double slots = double(perSm) * t.smCount;
    double waves = std::ceil(blocks / slots);
    double fill = blocks / (waves * slots);
    double warps = std::min(1.0, perSm * threads / 32.0 / 16.0);
    worst = std::max(worst, (spills ? 2.0 : 1.0) / (fill * warps));
  }
  return rooflineMs * worst;
}

std::string hashText(StringRef text) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  return s;
}

/// Writes `contents` to `dir/name` through a temporary file and a rename,
/// so a reader never sees a half-written file.
llvm::Error writeAtomically(StringRef dir, StringRef name,
                            StringRef contents) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  if (llvm::Error err = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << contents;
        return llvm::Error::success();
      }))
    return llvm::createStringError("cannot write " + path + ": " +
                                   llvm::toString(std::move(err)));
  return llvm::Error::success();
}

/// writeAtomically, its failure a diagnostic at `loc`.
LogicalResult writeArtifact(Location loc, StringRef dir, StringRef name,
                            StringRef contents) {
  if (llvm::Error err = writeAtomically(dir, name, contents))
    return emitError(loc) << llvm::toString(std::move(err));
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
  double peak = p.lhsType.isF32() ? t.peakFp32Tflops
                 : isFloat8(p.lhsType) && t.peakFp8Tflops > 0
                     ? t.peakFp8Tflops
                     : t.peakBf16Tflops;
  double computeMs = p.flops() / (peak * 1e12) * 1e3;
  double memoryMs = moved / (t.dramGBps * 1e9) * 1e3;
  return std::max(computeMs, memoryMs);
}

/// The report.html template (share/report/report.html.in), built in.
struct EmbeddedFile {
  const char *name;
  const char *text;
};
const EmbeddedFile kReportFiles[] = {
#include "EmbeddedReport.inc"
};
constexpr llvm::StringLiteral kReportMarker = "/*VIBEGEMM_REPORT_JSON*/null";

/// How a candidate ranks: measured time, else the static estimate; failed
/// candidates never win.
double rankOf(const json::Object &candidate) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (candidate.getString("status") != "ok")
    return kNever;
  if (std::optional<double> t = candidate.getNumber("time_ms"))
    return *t;
  return candidate.getNumber("estimated_ms").value_or(kNever);
}

std::string formatMs(const json::Object &c) {
  if (std::optional<double> t = c.getNumber("time_ms"))
    return llvm::formatv("{0:f3} ms", *t).str();
  if (std::optional<double> e = c.getNumber("estimated_ms"))
    return llvm::formatv("~{0:f3} ms (estimated)", *e).str();
  return "-";
}

/// The built-in schedule's choices, for report.json.
json::Object builtinScheduleJson(const SimtTiling &t) {
  if (const std::optional<KernelTiling> &tc = t.kernel)
    return json::Object{
        {"kind", tc->kindName()},
        {"why_not_staged", nullptr},
        {"block", json::Array{tc->blockM, tc->blockN, tc->blockK}},
        {"warps", tc->path != KernelPath::MmaSync
                      ? json::Value(nullptr)
                      : json::Value(json::Array{tc->warpsM, tc->warpsN})},
        {"thread", tc->path == KernelPath::Ffma
                       ? json::Value(json::Array{tc->threadM, tc->threadN})
                       : json::Value(nullptr)},
        {"consumers", tc->path == KernelPath::Wgmma ? json::Value(tc->consumers)
                                                    : json::Value(nullptr)},
        {"stages", tc->path == KernelPath::BlockReduce
                       ? json::Value(nullptr)
                       : json::Value(tc->stages)},
        {"split_k", tc->splitK},
        {"threads", tc->path == KernelPath::BlockReduce
                        ? json::Value(tc->threads)
                        : json::Value(nullptr)},
        {"padded_operands",
         tc->path == KernelPath::Wgmma || tc->path == KernelPath::Ffma
             ? json::Value(json::Array(tc->alignOperands))
             : json::Value(nullptr)},
        {"padded_row_bytes", tc->alignOperands.empty()
                                 ? json::Value(nullptr)
                                 : json::Value(tc->alignRowBytes)}};
  return json::Object{
      {"kind", t.staged ? "staged" : "direct"},
      {"why_not_staged",
       t.staged ? json::Value(nullptr) : json::Value(t.fallbackReason)},
      {"block", json::Array{t.blockM, t.blockN, t.blockK}},
      {"thread", json::Array{t.threadM, t.threadN}},
      {"split_m", t.splitM},
      {"split_n", t.splitN}};
}

/// What the LLM cost and did in this run, for report.json.
struct LLMStats {
  int64_t requests = 0, succeeded = 0, failed = 0, cacheHits = 0;
  int64_t promptTokens = 0, completionTokens = 0;
};

class LLMSchedulePass
    : public WithVibeGemmTransformOps<
          vibegemm::impl::LLMSchedulePassBase<LLMSchedulePass>> {
public:
  using WithVibeGemmTransformOps::WithVibeGemmTransformOps;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The auto choice stands for this run only: the option keeps "auto" for
    // the next module this pass instance runs on.
    llvm::scope_exit keepRequestedTarget(
        [this, requested = std::string(target)] { target = requested; });
    if (target == "auto") {
      // The GPU here decides; without one, portable sm_90.
      bool found = probeGpu();
      vibegemm::TargetChoice choice =
          vibegemm::chooseTargetFromProbe(found, probeAnswer);
      if (choice.target.empty()) {
        emitError(module.getLoc(), "target=auto: ")
            << choice.why << "; pass target= to compile for another GPU";
        return signalPassFailure();
      }
      target = choice.target;
      targetWhy = "target=auto: " + choice.why;
    }
    info = vibegemm::lookupTargetOrEmitError(target, module.getLoc());
    if (!info)
      return signalPassFailure();
    if (measure != "auto" && measure != "on" && measure != "off") {
      emitError(module.getLoc(), "measure must be auto, on or off, not '")
          << measure << "'";
      return signalPassFailure();
    }
    ptxasPath = vibegemm::findPtxas(ptxas);
    if (!ptxas.empty() && !ptxasPath) {
      emitError(module.getLoc(), "ptxas not found at ") << ptxas;
      return signalPassFailure();
    }
    llvm::Expected<PromptTemplates> loaded = loadPromptTemplates(promptsDir);
    if (!loaded) {
      emitError(module.getLoc()) << llvm::toString(loaded.takeError());
      return signalPassFailure();
    }
    templates = std::move(*loaded);
    allowlist = parseAllowlist(templates.allowlist);
    measurement = setUpMeasurement();
    if (measure == "on" && !measurement.enabled) {
      emitError(module.getLoc(), "measure=on, but candidates cannot be "
                                 "measured here: ")
          << measurement.why;
      return signalPassFailure();
    }
    std::string llmEndpoint = endpoint;
    if (llmEndpoint.empty())
      llmEndpoint =
          llvm::sys::Process::GetEnv("VIBEGEMM_LLM_ENDPOINT").value_or("");
    if (!llmEndpoint.empty()) {
      std::string llmModel = model;
      if (llmModel.empty())
        llmModel = llvm::sys::Process::GetEnv("VIBEGEMM_LLM_MODEL")
                       .value_or("default");
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
      return signalPassFailure();
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
    front.addPass(createVibeGemmBuiltinSchedulePass({target}));
    if (failed(runPipeline(front, module)))
      return signalPassFailure();
    if (!reference.error.empty())
      module.emitWarning("reference kernels could not be built, so only "
                         "cuBLAS can check these kernels: ")
          << reference.error;

    ModuleOp schedules = getSchedulesModule(module, /*create=*/false);
    std::vector<DispatchRecord> records;
    for (func::FuncOp dispatch : getDispatches(module)) {
      // Generic dispatches keep the generic schedule; they are not tuned.
      if (isGenericDispatch(dispatch))
        continue;
      DispatchRecord record;
      record.name = dispatch.getSymName().str();
      record.signature =
          dispatch->getAttrOfType<StringAttr>(kSignatureAttr).str();
      record.problem = *getGemmProblem(dispatch);
      record.tiling = vibegemm::chooseSimtTiling(record.problem, *info);
      record.gemm = describeGemm(dispatch, record.problem, record.plain);
      std::string builtin = printSchedule(dispatch, schedules);
      record.scripts.push_back(builtin);
      record.candidates.push_back(evaluateScript(
          module, dispatch, record, builtin,
          json::Object{{"index", 0}, {"source", "builtin"}, {"round", 0}}));
      // A schedule that won an earlier run competes again.
      if (std::optional<StoredWinner> stored =
              tuningDB ? tuningDB->winner(record.signature, target,
                                          LLVM_VERSION_STRING)
                       : std::nullopt;
          stored && stored->script != builtin) {
        record.scripts.push_back(stored->script);
        record.candidates.push_back(evaluateScript(
            module, dispatch, record, stored->script,
            json::Object{{"index", 1}, {"source", "db"}, {"round", 0}}));
        if (rankOf(*record.candidates[1].getAsObject()) <
            rankOf(*record.candidates[0].getAsObject()))
          record.winner = 1;
      }
      // Built-in variants race the built-in schedule only where the GPU
      // times them: static estimates cannot tell them apart.
      if (measurement.enabled &&
          failed(raceAlternatives(module, dispatch, record)))
        return signalPassFailure();
      size_t beforeLLM = record.winner;
      if (client && failed(tuneWithLLM(module, dispatch, record)))
        return signalPassFailure();
      // An LLM script ships only after a GPU ran it against the reference:
      // without one, the winner from before the LLM rounds stays.
      if (!measurement.enabled && record.winner != beforeLLM) {
        record.unverifiedBest = record.winner;
        record.winner = beforeLLM;
      }
      const json::Object &win = *record.candidates[record.winner].getAsObject();
      if (measurement.enabled && win.getString("status") != "ok") {
        // Never hand out a kernel the GPU just showed to be wrong.
        emitError(dispatch.getLoc(), "dispatch ")
            << record.name << ": no candidate passed verification on "
            << measurement.device << " (" << *win.getString("status") << ": "
            << win.getString("diagnostic").value_or("")
            << "); this is a vibegemm bug, please report it "
               "(measure=off skips the check)";
        return signalPassFailure();
      }
      if (win.getString("status") != "ok") {
        // Nor one that ptxas (or the lowering) refused.
        emitError(dispatch.getLoc(), "dispatch ")
            << record.name << ": no candidate compiled ("
            << *win.getString("status") << ": "
            << win.getString("diagnostic").value_or("") << ")";
        return signalPassFailure();
      }
      if (record.winner != 0 &&
          failed(attachSchedule(dispatch, record.scripts[record.winner])))
        return signalPassFailure();
      record.schedule = vibegemm::wrapForReplay(
          printSchedule(dispatch, schedules), record.name, record.name);
      records.push_back(std::move(record));
    }

    OpPassManager back(ModuleOp::getOperationName());
    back.addPass(createVibeGemmApplySchedulesPass());
    buildLowerToPTXPipeline(back, target);
    if (failed(runPipeline(back, module)))
      return signalPassFailure();

    if (tuningDB)
      for (const DispatchRecord &r : records)
        if (llvm::Error err = tuningDB->record(toTuningRun(r))) {
          emitError(module.getLoc()) << llvm::toString(std::move(err));
          return signalPassFailure();
        }
    if (failed(writeArtifacts(module, records)))
      return signalPassFailure();
    if (!client) {
      llvm::errs() << "vibegemm: no LLM endpoint configured; the built-in "
                      "scheduler ran";
      if (!targetWhy.empty())
        llvm::errs() << " for " << target << " (" << targetWhy << ")";
      llvm::errs() << "\n";
      return;
    }
    if (!targetWhy.empty())
      llvm::errs() << "vibegemm: " << target << " (" << targetWhy << ")\n";
    for (const DispatchRecord &r : records) {
      const json::Object &win = *r.candidates[r.winner].getAsObject();
      bool anyValid = false;
      for (const json::Value &v : r.candidates) {
        const json::Object &c = *v.getAsObject();
        anyValid |= c.getString("source") == "llm" &&
                    c.getString("status") == "ok";
      }
      llvm::errs() << "vibegemm: " << r.name << ": ";
      if (r.unverifiedBest) {
        const json::Object &best = *r.candidates[*r.unverifiedBest].getAsObject();
        llvm::errs() << "LLM candidate " << *r.unverifiedBest << " (round "
                     << best.getInteger("round").value_or(0) << ", "
                     << formatMs(best)
                     << ") ranked best, but no GPU verified it; candidate "
                     << r.winner << " ("
                     << win.getString("source").value_or("builtin")
                     << ") ships\n";
        continue;
      }
      if (r.winner != 0)
        llvm::errs() << "winner candidate " << r.winner << " ("
                     << win.getString("source").value_or("llm") << ", round "
                     << win.getInteger("round").value_or(0) << "), "
                     << formatMs(win) << "\n";
      else if (!anyValid)
        llvm::errs() << "no LLM candidate was valid; the built-in schedule "
                        "won\n";
      else
        llvm::errs() << "the built-in schedule stayed best, " << formatMs(win)
                     << "\n";
    }
    llvm::errs() << llvm::formatv(
        "vibegemm: LLM: {0} requests ({1} failed), {2} answers from the "
        "cache, {3} prompt + {4} completion tokens\n",
        stats.requests, stats.failed, stats.cacheHits, stats.promptTokens,
        stats.completionTokens);
  }

private:
  /// Asks `vibegemm-run --probe` (in a child) once whether a GPU is usable;
  /// `probeAnswer` says which, or why not.
  bool probeGpu() {
    if (probed)
      return *probed;
    std::optional<std::string> found =
        runner.empty()
            ? vibegemm::runtime::findRunnerBeside(
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

  Measurement setUpMeasurement() {
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
    pm.addPass(createVibeGemmPreparePass());
    pm.addPass(createVibeGemmFormDispatchesPass());
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

  /// Verifies and times one candidate in a child vibegemm-run; `files` are
  /// written to a scratch directory first.
  json::Object
  measureCandidate(StringRef planName,
                   const std::map<std::string, std::string> &files) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("vibegemm-measure", dir))
      return json::Object{{"status", vibegemm::runtime::kStatusLoadError},
                          {"diagnostic", "cannot create a scratch directory"}};
    for (auto &[name, contents] : files)
      if (failed(writeArtifact(getOperation().getLoc(), dir, name, contents)))
        return json::Object{
            {"status", vibegemm::runtime::kStatusLoadError},
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
      candidate["diagnostic"] =
          result.getString("diagnostic").value_or("").str();
    } else {
      candidate["measure_error"] =
          (status + ": " + result.getString("diagnostic").value_or("")).str();
    }
    json::Object summary;
    for (const char *key :
         {"status", "reference", "reference_cpu_check", "seed", "timing",
          "outputs", "cublas", "device", "recheck", "launches"})
      if (json::Value *v = result.get(key))
        summary[key] = *v;
    candidate["measurement"] = std::move(summary);
  }

  /// Adds what vibegemm-run needs to a dispatch plan: FLOPs, the GEMM it
  /// holds, and what checks it (cuBLAS for a plain GEMM, reference kernels
  /// otherwise). The reference files go into `files`.
  void decoratePlan(json::Object &plan, const DispatchRecord &record,
                    std::map<std::string, std::string> &files) {
    plan["flops"] = record.problem.flops();
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
  void addReferencePlan(json::Object &plan, const std::string &name,
                        std::map<std::string, std::string> &files) {
    auto refPlan = reference.plans.find(name);
    if (refPlan == reference.plans.end() || !reference.ptx.count(name))
      return;
    plan["reference_plan"] = name + ".reference.plan.json";
    files[name + ".reference.ptx"] = reference.ptx[name];
    files[name + ".reference.plan.json"] =
        formatJson(json::Value(json::Object(refPlan->second)));
  }

  /// Checks, applies, lowers and (where possible) measures one script on a
  /// copy of `dispatch`; returns `candidate` filled in as a report entry.
  /// Applies and lowers `work` (a dispatch and its schedule) in a child
  /// vibegemm-opt first, under a time and memory limit, so an untrusted
  /// script that crashes the compiler, runs away or exhausts memory (upstream
  /// transforms trust their inputs) fails a candidate rather than the
  /// compile. Returns why the child died, or "" (also where no vibegemm-opt
  /// is installed beside this code: then the script runs here unguarded).
  std::string sandboxRun(ModuleOp work) {
    static const std::optional<std::string> tool =
        vibegemm::runtime::findToolBeside(
            "vibegemm-opt", nullptr,
            reinterpret_cast<void *>(&staticEstimateMs));
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
    llvm::StringRef args[] = {
        *tool, input, "--vibegemm-apply-schedules=expensive-checks=true",
        lower, "-o",  "/dev/null"};
    std::optional<llvm::StringRef> redirects[] = {
        llvm::StringRef(""), llvm::StringRef(""), llvm::StringRef("")};
    std::string errMsg;
    int rc = llvm::sys::ExecuteAndWait(*tool, args, std::nullopt, redirects,
                                       sandboxTimeout, kSandboxMegabytes,
                                       &errMsg);
    // 0 and 1 (an ordinary error, reported again when it runs here) pass.
    if (rc == 0 || rc == 1)
      return "";
    return llvm::formatv("the script killed a sandboxed vibegemm-opt "
                         "applying and lowering it (limits {0} s, {1} MiB; "
                         "exit {2}{3})",
                         static_cast<unsigned>(sandboxTimeout),
                         kSandboxMegabytes, rc,
                         errMsg.empty() ? "" : ": " + errMsg)
        .str();
  }

  json::Object evaluateScript(ModuleOp module, func::FuncOp dispatch,
                              const DispatchRecord &record, StringRef script,
                              json::Object candidate) {
    MLIRContext *ctx = module.getContext();
    double roofline = rooflineMs(record.problem, *info);
    candidate["script_hash"] = hashText(script);
    candidate["status"] = "ok";
    candidate["diagnostic"] = "";
    candidate["time_ms"] = nullptr;
    candidate["tflops"] = nullptr;
    candidate["timing"] = "estimated";
    candidate["roofline_ms"] = roofline;
    auto failWith = [&](StringRef status, std::string diagnostic) {
      candidate["status"] = status.str();
      candidate["diagnostic"] = std::move(diagnostic);
      return std::move(candidate);
    };
    ScriptCheck check = checkScript(ctx, script, allowlist);
    if (check.status != "ok")
      return failWith(check.status, check.diagnostic);

    // A private copy of the dispatch, in a module nested here only while
    // the pipelines run.
    auto work = ModuleOp::create(dispatch.getLoc());
    module.getBody()->push_back(work);
    OpBuilder builder(ctx);
    builder.setInsertionPointToEnd(work.getBody());
    auto copy = cast<func::FuncOp>(builder.clone(*dispatch.getOperation()));
    std::string firstError, status;
    {
      ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
          firstError = d.str();
        return success();
      });
      OpPassManager apply(ModuleOp::getOperationName());
      VibeGemmApplySchedulesPassOptions applyOptions;
      applyOptions.expensiveChecks = true; // the script is untrusted
      apply.addPass(createVibeGemmApplySchedulesPass(applyOptions));
      OpPassManager lower(ModuleOp::getOperationName());
      buildLowerToPTXPipeline(lower, target);
      bool untrusted = candidate.getString("source").value_or("") != "builtin";
      if (failed(attachSchedule(copy, script)))
        status = "parse-error";
      else if (std::string crash = untrusted ? sandboxRun(work) : "";
               !crash.empty()) {
        status = "apply-error";
        firstError = crash;
      } else if (failed(runPipeline(apply, work)))
        status = "apply-error";
      else if (std::string why = precisionOverreach(dispatch, copy);
               !why.empty()) {
        status = "apply-error";
        firstError = why;
      } else if (failed(runPipeline(lower, work)))
        status = "lowering-error";
    }
    std::string ptx;
    FailureOr<json::Object> plan = failure();
    if (status.empty()) {
      auto binary = work.lookupSymbol<gpu::BinaryOp>(record.name + "_kernels");
      if (binary)
        ptx = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                  .getObject()
                  .getValue()
                  .str();
      ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
        if (firstError.empty())
          firstError = d.str();
        return success();
      });
      plan = vibegemm::buildLaunchPlan(
          work.lookupSymbol<func::FuncOp>(record.name), target,
          [](StringRef m) {
            return (m.drop_back(strlen("_kernels")) + ".ptx").str();
          });
      if (!binary || failed(plan))
        status = "lowering-error";
    }
    work.erase();
    if (!status.empty())
      return failWith(status, firstError.empty()
                                  ? "the " +
                                        status.substr(0, status.find('-')) +
                                        " step failed"
                                  : firstError);

    std::vector<vibegemm::KernelResources> kernels;
    if (ptxasPath) {
      vibegemm::PtxasResult checked =
          vibegemm::runPtxas(*ptxasPath, ptx, info->chip);
      if (!checked.accepted)
        return failWith("ptxas-error",
                        checked.log.empty()
                            ? "ptxas failed without a message"
                            : checked.log.substr(0, 2000));
      kernels = checked.kernels;
      for (auto &kv : vibegemm::resourcesToJson(kernels))
        candidate[kv.first] = std::move(kv.second);
      // ptxas accepts more static shared memory than a launch can get.
      for (const vibegemm::KernelResources &k : kernels)
        if (k.sharedBytes > info->staticSharedBytesPerBlock)
          return failWith("ptxas-error",
                          llvm::formatv("kernel {0} uses {1} bytes of static "
                                        "shared memory; {2} allows {3}",
                                        k.kernel, k.sharedBytes, info->name,
                                        info->staticSharedBytesPerBlock));
    } else {
      candidate["ptxas"] = "not found; resources unknown";
    }
    candidate["dynamic_shared_bytes"] = dynamicSharedBytes(*plan);
    candidate["estimated_ms"] =
        staticEstimateMs(roofline, *plan, kernels, *info);
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
      if (measurement.enabled)
        recordMeasurement(candidate,
                          measureCandidate(record.name + ".plan.json", files));
    }
    return std::move(candidate);
  }

  /// keep-candidates: the candidate's `files` in a directory of its own
  /// under the artifacts, named in the report as "files" (or why not as
  /// "files_error": a copy kept for inspection does not fail the run).
  void keepCandidateFiles(json::Object &candidate, const DispatchRecord &record,
                          const std::map<std::string, std::string> &files) {
    std::string relative =
        llvm::formatv("candidates/{0}-{1}", record.name,
                      candidate.getInteger("index").value_or(-1))
            .str();
    llvm::SmallString<256> dir(artifactsDir);
    llvm::sys::path::append(dir, relative);
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      candidate["files_error"] =
          ("cannot create " + dir + ": " + ec.message()).str();
      return;
    }
    for (auto &[name, contents] : files)
      if (llvm::Error err = writeAtomically(dir, name, contents)) {
        candidate["files_error"] = llvm::toString(std::move(err));
        return;
      }
    candidate["files"] = relative;
  }

  /// The protocol a run's times were taken under, from what vibegemm-run
  /// reported: sustained-clock when every timed candidate says its timed
  /// runs followed sustained ones, else none (times from before it).
  static std::string timingProtocol(const json::Array &candidates) {
    bool timed = false;
    for (const json::Value &v : candidates) {
      const json::Object *c = v.getAsObject();
      if (!c || !c->getNumber("time_ms"))
        continue;
      timed = true;
      const json::Object *m = c->getObject("measurement");
      const json::Object *t = m ? m->getObject("timing") : nullptr;
      if (!t || !t->getString("sustained"))
        return "";
    }
    return timed ? kSustainedClockTiming : "";
  }

  /// Adds the built-in scheduler's variants of the dispatch's tiling as
  /// candidates ("builtin-variant"); a faster verified one wins.
  LogicalResult raceAlternatives(ModuleOp module, func::FuncOp dispatch,
                                 DispatchRecord &record) {
    for (const vibegemm::TilingVariant &variant :
         vibegemm::alternativeTilings(record.problem, record.tiling, *info)) {
      FailureOr<std::string> script = vibegemm::writeSimtSchedule(
          dispatch, record.problem, variant.tiling, dispatch.getSymName());
      if (failed(script))
        return failure();
      // The tuning database's winner may be this variant already.
      if (llvm::is_contained(record.scripts, *script))
        continue;
      int64_t index = record.candidates.size();
      record.scripts.push_back(*script);
      // A variant measured on this device before is not run again: a
      // kernel that failed (a hang would cost the measure timeout on every
      // compile), or one that ran and is not the database's winner, which
      // beat it (three races per dispatch would slow every compile).
      namespace rt = vibegemm::runtime;
      llvm::StringRef measuredStatuses[] = {
          rt::kStatusFault, rt::kStatusTimeout, rt::kStatusWrongResult,
          rt::kStatusOk};
      std::string hash = hashText(*script);
      if (std::optional<vibegemm::TuningDB::PastResult> past =
              tuningDB ? tuningDB->pastResult(record.signature, target,
                                              LLVM_VERSION_STRING,
                                              measurement.device, hash,
                                              measuredStatuses)
                       : std::nullopt) {
        std::string why =
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
        record.candidates.push_back(json::Object{
            {"index", index},
            {"source", "builtin-variant"},
            {"variant", variant.name},
            {"round", 0},
            {"status", "skipped"},
            {"script_hash", hash},
            {"diagnostic", why}});
        continue;
      }
      record.candidates.push_back(evaluateScript(
          module, dispatch, record, *script,
          json::Object{{"index", index},
                       {"source", "builtin-variant"},
                       {"variant", variant.name},
                       {"round", 0}}));
      if (rankOf(*record.candidates.back().getAsObject()) <
          rankOf(*record.candidates[record.winner].getAsObject()))
        record.winner = index;
    }
    return success();
  }

  TuningRun toTuningRun(const DispatchRecord &r) const {
    TuningRun run;
    run.signature = r.signature;
    run.target = target;
    run.toolchain = LLVM_VERSION_STRING;
    run.device = measurement.device;
    run.model = client ? client->model() : "";
    run.measured = measurement.enabled;
    run.timing = timingProtocol(r.candidates);
    run.winner = r.winner;
    for (auto [i, v] : llvm::enumerate(r.candidates)) {
      const json::Object &c = *v.getAsObject();
      CandidateRow row;
      row.index = static_cast<int64_t>(i);
      row.round = c.getInteger("round").value_or(0);
      row.source = c.getString("source").value_or("").str();
      row.status = c.getString("status").value_or("").str();
      row.diagnostic = c.getString("diagnostic").value_or("").str();
      row.scriptHash = c.getString("script_hash").value_or("").str();
      row.script = r.scripts[i];
      row.timeMs = c.getNumber("time_ms");
      row.estimatedMs = c.getNumber("estimated_ms");
      row.tflops = c.getNumber("tflops");
      row.registers = c.getInteger("registers");
      row.spillBytes = c.getInteger("spill_bytes");
      row.sharedBytes = c.getInteger("shared_bytes");
      run.candidates.push_back(std::move(row));
    }
    return run;
  }

  /// The history part of a prompt: every candidate so far, and the scripts
  /// of the latest few.
  static std::string historyText(const DispatchRecord &record) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "| # | source | round | status | time | registers | spills | "
          "diagnostic |\n|---|---|---|---|---|---|---|---|\n";
    for (const json::Value &v : record.candidates) {
      const json::Object &c = *v.getAsObject();
      std::string diag = c.getString("diagnostic").value_or("").str();
      std::replace(diag.begin(), diag.end(), '\n', ' ');
      std::replace(diag.begin(), diag.end(), '|', '/');
      if (diag.size() > 300)
        diag = diag.substr(0, 300) + "...";
      os << "| " << c.getInteger("index").value_or(0) << " | "
         << c.getString("source").value_or("") << " | "
         << c.getInteger("round").value_or(0) << " | "
         << c.getString("status").value_or("") << " | " << formatMs(c) << " | "
         << (c.getInteger("registers")
                 ? std::to_string(*c.getInteger("registers"))
                 : "-")
         << " | "
         << (c.getInteger("spill_bytes")
                 ? std::to_string(*c.getInteger("spill_bytes"))
                 : "-")
         << " | " << diag << " |\n";
    }
    constexpr size_t kScriptsShown = 4;
    size_t first = record.scripts.size() > kScriptsShown
                       ? record.scripts.size() - kScriptsShown
                       : 1;
    for (size_t i = first; i < record.scripts.size(); ++i) {
      if (record.scripts[i].empty())
        continue;
      os << "\nCandidate " << i << " ("
         << record.candidates[i].getAsObject()->getString("status").value_or("")
         << "):\n```mlir\n"
         << record.scripts[i] << "\n```\n";
    }
    return s;
  }

  std::string problemText(const DispatchRecord &r) {
    const GemmProblem &p = r.problem;
    return llvm::formatv(
               "C[{0}x{1}] = A[{0}x{2}] * B[{2}x{1}], batch {3}, dtypes {4}, "
               "A {5}, B {6}, {7} fused consumer op(s){10}{8}; {9:e3} FLOP",
               p.m, p.n, p.k, p.batch, p.dtypeString(),
               p.transposeA ? "stored transposed [K, M]" : "row-major [M, K]",
               p.transposeB ? "stored transposed [N, K]" : "row-major [K, N]",
               p.epilogueOps, p.hasSoftmax ? " ending in a row softmax" : "",
               p.flops(),
               p.transcendentalOps
                   ? llvm::formatv(" ({0} transcendental math op(s) per "
                                   "output element)",
                                   p.transcendentalOps)
                         .str()
                   : std::string())
        .str();
  }

  std::string targetText() {
    return llvm::formatv(
               "{0} ({1}): {2} SMs, at most {3} threads per block, {4} KiB "
               "static / {5} KiB opt-in shared memory per block, {6} 32-bit "
               "registers per SM, peak {7} TFLOP/s f32 (FFMA) and {8} "
               "TFLOP/s bf16/f16 (tensor cores), {9} GB/s DRAM",
               info->name, info->chip, info->smCount, info->maxThreadsPerBlock,
               info->staticSharedBytesPerBlock / 1024,
               info->maxSharedBytesPerBlock / 1024, info->registersPerSm,
               info->peakFp32Tflops, info->peakBf16Tflops, info->dramGBps)
        .str();
  }

  /// Shows progress on a terminal; stays quiet otherwise.
  void progress(const DispatchRecord &r, unsigned round, unsigned candidate,
                StringRef status) {
    if (!llvm::errs().is_displayed())
      return;
    const json::Object &best = *r.candidates[r.winner].getAsObject();
    llvm::errs() << llvm::formatv(
        "\r\x1b[2K[{0}] round {1}/{2}, candidate {3}/{4}: {5}; best: #{6} {7}",
        r.name, round, rounds, candidate, candidates, status, r.winner,
        formatMs(best));
  }

  /// The LLM rounds for one dispatch. Fails only when the endpoint itself
  /// is unusable; every bad reply is a candidate with a status.
  LogicalResult tuneWithLLM(ModuleOp module, func::FuncOp dispatch,
                            DispatchRecord &record) {
    std::string ir;
    llvm::raw_string_ostream irStream(ir);
    // The prompt states the target once, in its target facts.
    Attribute targetAttr = dispatch->removeAttr(kTargetAttr);
    dispatch.print(irStream);
    if (targetAttr)
      dispatch->setAttr(kTargetAttr, targetAttr);
    std::map<std::string, std::string> values = {
        {"DISPATCH_NAME", record.name},
        {"SEQUENCE_NAME", record.name},
        {"DISPATCH_IR", ir},
        {"PROBLEM", problemText(record)},
        {"TARGET_FACTS", targetText()},
        {"ROOFLINE", llvm::formatv("{0:f4} ms (FLOPs over peak or bytes over "
                                   "bandwidth, whichever is larger)",
                                   rooflineMs(record.problem, *info))
                         .str()},
        {"ROUNDS", std::to_string(rounds)},
        {"CANDIDATES", std::to_string(candidates)},
        {"ALLOWED_OPS", templates.allowedOps}};
    std::string system = fillTemplate(templates.system, values);
    if (!StringRef(templates.system).contains("{{ALLOWED_OPS}}"))
      system += "\n\n" + templates.allowedOps;

    for (unsigned round = 1; round <= rounds; ++round) {
      bool improved = false, roundHadValid = false;
      for (unsigned c = 1; c <= candidates; ++c) {
        const json::Object &best =
            *record.candidates[record.winner].getAsObject();
        values["ROUND"] = std::to_string(round);
        values["CANDIDATE"] = std::to_string(c);
        values["BEST_SCHEDULE"] = record.scripts[record.winner];
        values["BEST_SUMMARY"] = llvm::formatv(
            "candidate {0} ({1}), {2}", record.winner,
            best.getString("source").value_or(""), formatMs(best));
        values["HISTORY"] = historyText(record);
        std::vector<llm::ChatMessage> messages = {
            {"system", system},
            {"user", fillTemplate(templates.round, values)}};
        std::string key = llm::ResponseCache::key(client->model(), messages);
        llm::ChatResult reply;
        bool cached = false;
        if (std::optional<llm::ChatResult> hit = cache->lookup(key)) {
          reply = std::move(*hit);
          cached = true;
          ++stats.cacheHits;
        } else {
          progress(record, round, c, "asking the LLM");
          reply = client->complete(messages);
          stats.requests += reply.attempts;
          if (reply.ok) {
            ++stats.succeeded;
            stats.promptTokens += reply.usage.promptTokens;
            stats.completionTokens += reply.usage.completionTokens;
            cache->store(key, reply);
          } else {
            ++stats.failed;
          }
        }
        if (!reply.ok && reply.endpointUnusable && stats.succeeded == 0 &&
            stats.cacheHits == 0) {
          if (llvm::errs().is_displayed())
            llvm::errs() << "\n";
          return emitError(dispatch.getLoc(), "LLM endpoint ")
                 << client->endpoint()
                 << " rejected the request: " << reply.error;
        }
        json::Object candidate{
            {"index", static_cast<int64_t>(record.candidates.size())},
            {"source", "llm"},
            {"round", round},
            {"cached", cached},
            {"prompt_tokens", reply.usage.promptTokens},
            {"completion_tokens", reply.usage.completionTokens}};
        std::optional<std::string> script;
        if (reply.ok)
          script = llm::extractMlirBlock(reply.content);
        if (!reply.ok) {
          candidate["status"] = "llm-error";
          candidate["diagnostic"] = reply.error;
        } else if (!script) {
          candidate["status"] = "parse-error";
          candidate["diagnostic"] = "the reply has no ```mlir block";
        } else {
          candidate = evaluateScript(module, dispatch, record, *script,
                                     std::move(candidate));
        }
        StringRef status = *candidate.getString("status");
        progress(record, round, c, status);
        record.scripts.push_back(script.value_or(""));
        double rank = rankOf(candidate);
        roundHadValid |= std::isfinite(rank);
        record.candidates.push_back(std::move(candidate));
        if (rank < rankOf(*record.candidates[record.winner].getAsObject())) {
          record.winner = record.candidates.size() - 1;
          // Only a measured gain counts: an estimate cannot show one.
          improved |= record.candidates.back().getAsObject()->getNumber(
                          "time_ms") != std::nullopt;
        }
      }
      // Rounds stopped improving: stop. A round with no valid candidate
      // at all goes on, so the next prompt can show what failed.
      if (!improved && roundHadValid)
        break;
    }
    if (llvm::errs().is_displayed())
      llvm::errs() << "\n";
    if (stats.succeeded == 0 && stats.cacheHits == 0 && stats.failed > 0) {
      const json::Object &last = *record.candidates.back().getAsObject();
      return emitError(dispatch.getLoc(), "LLM endpoint ")
             << client->endpoint() << " gave no usable reply in "
             << stats.requests << " requests; the last: "
             << last.getString("diagnostic").value_or("");
    }
    return success();
  }

  /// The artifacts of the final compile (the winners) and the reports,
  /// written only when everything succeeded, each through a rename.
  LogicalResult writeArtifacts(ModuleOp module,
                               std::vector<DispatchRecord> &records) {
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
      auto dispatchFunc = module.lookupSymbol<func::FuncOp>(record.name);
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(dispatchFunc, target, ptxFile);
      if (failed(plan))
        return failure();
      decoratePlan(*plan, record, files);
      files[record.name + ".ptx"] =
          cast<gpu::ObjectAttr>(binary.getObjects()[0])
              .getObject()
              .getValue()
              .str();
      files[record.name + ".plan.json"] =
          formatJson(json::Value(std::move(*plan)));
      files[record.name + ".schedule.mlir"] = record.schedule;

      const GemmProblem &p = record.problem;
      const json::Object &win = *record.candidates[record.winner].getAsObject();
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
                                   {"transcendental_ops",
                                    p.transcendentalOps},
                                   {"flops", p.flops()}}},
          {"builtin_schedule", builtinScheduleJson(record.tiling)},
          {"winner", static_cast<int64_t>(record.winner)},
          {"unverified_best",
           record.unverifiedBest
               ? json::Value(static_cast<int64_t>(*record.unverifiedBest))
               : json::Value(nullptr)},
          {"winner_source", win.getString("source").value_or("builtin").str()},
          {"winner_script", record.scripts[record.winner]},
          {"candidates", json::Array(record.candidates)}});
    }

    // Generic dispatches: their kernels and plans (checked against their
    // reference plans), so whole-function plans can run them.
    json::Array genericDispatches;
    for (func::FuncOp dispatchFunc : getDispatches(module)) {
      if (!isGenericDispatch(dispatchFunc))
        continue;
      std::string name = dispatchFunc.getSymName().str();
      auto binary = module.lookupSymbol<gpu::BinaryOp>(name + "_kernels");
      FailureOr<json::Object> plan =
          vibegemm::buildLaunchPlan(dispatchFunc, target, ptxFile);
      if (!binary || failed(plan))
        return emitError(dispatchFunc.getLoc(), "no kernel or launch plan "
                                                "for generic dispatch ")
               << name;
      addReferencePlan(*plan, name, files);
      files[name + ".ptx"] = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                                 .getObject()
                                 .getValue()
                                 .str();
      files[name + ".plan.json"] = formatJson(json::Value(std::move(*plan)));
      std::string ops;
      if (auto fusion = dispatchFunc->getAttrOfType<ArrayAttr>(kFusionAttr))
        for (Attribute op : fusion)
          ops += (ops.empty() ? "" : ",") + cast<StringAttr>(op).str();
      genericDispatches.push_back(json::Object{
          {"name", name},
          {"signature",
           dispatchFunc->getAttrOfType<StringAttr>(kSignatureAttr).str()},
          {"ops", ops}});
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

    std::string dbPath = tuningDBPath(db, /*useEnv=*/true);
    json::Object report{
        {"version", 1},
        {"target", target},
        {"target_choice", targetWhy.empty()
                              ? json::Value("given")
                              : json::Value(targetWhy)},
        {"scheduler", client ? "llm" : "builtin"},
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
        {"dispatches", std::move(dispatches)},
        {"generic_dispatches", std::move(genericDispatches)}};
    if (client)
      report["llm"] = json::Object{
          {"endpoint", client->endpoint()},
          {"model", client->model()},
          {"rounds", static_cast<int64_t>(rounds)},
          {"candidates_per_round", static_cast<int64_t>(candidates)},
          {"requests", stats.requests},
          {"failed_requests", stats.failed},
          {"cache_hits", stats.cacheHits},
          {"cache", cache->enabled() ? "on" : "off"},
          {"prompt_tokens", stats.promptTokens},
          {"completion_tokens", stats.completionTokens}};
    std::string reportText = formatJson(json::Value(std::move(report)));
    files["report.json"] = reportText;
    files["report.html"] = reportHtml(reportText);

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

  /// report.html: the template with the report inlined (a "</" in the
  /// JSON cannot end the script element).
  static std::string reportHtml(StringRef reportJson) {
    std::string safe;
    for (size_t i = 0; i < reportJson.size(); ++i) {
      if (reportJson[i] == '<' && i + 1 < reportJson.size() &&
          reportJson[i + 1] == '/')
        safe += "<\\";
      else
        safe += reportJson[i];
    }
    std::string html = kReportFiles[0].text;
    size_t at = html.find(kReportMarker.str());
    // The marker comment stays, so tools can find the data again.
    if (at != std::string::npos)
      html.replace(at, kReportMarker.size(),
                   kReportMarker.drop_back(strlen("null")).str() + safe);
    return html;
  }

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
  std::shared_ptr<TuningDB> tuningDB; // shared: passes must be copyable

  static std::string formatJson(const json::Value &value) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::formatv("{0:2}", value) << "\n";
    return s;
  }
};

} // namespace
