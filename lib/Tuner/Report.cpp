//===- Report.cpp - Database rows, artifacts and the reports --------------===//
//
// What a tuning run leaves behind: a tuning-database row per dispatch, the
// winners' PTX, schedules and launch plans, report.json and report.html.
//
//===----------------------------------------------------------------------===//

#include "Tuner.h"

#include "vibegemm/Scheduler/ScriptCheck.h"
#include "vibegemm/Target/LaunchPlan.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;
namespace json = llvm::json;

std::string tuner::hashScript(const DialectRegistry &registry,
                              StringRef script) {
  // A context of its own: hashing runs on the candidates' threads.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  std::string canonical;
  // The custom form, not the generic one: it leaves out attributes at their
  // defaults, whether the script spells them or not.
  if (OwningOpRef<ModuleOp> parsed = parseScript(&context, script)) {
    llvm::raw_string_ostream os(canonical);
    parsed->print(os);
  }
  return hashText(canonical.empty() ? script : StringRef(canonical));
}

llvm::Error tuner::writeAtomically(StringRef dir, StringRef name,
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

LogicalResult tuner::writeArtifact(Location loc, StringRef dir, StringRef name,
                                   StringRef contents) {
  if (llvm::Error err = writeAtomically(dir, name, contents))
    return emitError(loc) << llvm::toString(std::move(err));
  return success();
}

std::string tuner::formatJson(const json::Value &value) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", value) << "\n";
  return s;
}

double tuner::rankOf(const Candidate &candidate) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (!candidate.ok())
    return kNever;
  if (candidate.timeMs)
    return *candidate.timeMs;
  return candidate.estimatedMs.value_or(kNever);
}

/// Four significant digits: decode-sized kernels run for microseconds,
/// where three decimals of a millisecond would hide a 10 % difference from
/// the LLM that must beat it.
std::string tuner::significantMs(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", ms);
  return text;
}

std::string tuner::formatMs(const Candidate &c) {
  if (std::optional<double> t = c.timeMs)
    return significantMs(*t) + " ms";
  if (std::optional<double> e = c.estimatedMs)
    return "~" + significantMs(*e) + " ms (estimated)";
  return "-";
}

namespace {
/// The report.html template (share/report/report.html.in), built in.
struct EmbeddedFile {
  const char *name;
  const char *text;
};
const EmbeddedFile kReportFiles[] = {
#include "EmbeddedReport.inc"
};
constexpr llvm::StringLiteral kReportMarker = "/*VIBEGEMM_REPORT_JSON*/null";

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
  return json::Object{{"kind", t.staged ? "staged" : "direct"},
                      {"why_not_staged", t.staged
                                             ? json::Value(nullptr)
                                             : json::Value(t.fallbackReason)},
                      {"block", json::Array{t.blockM, t.blockN, t.blockK}},
                      {"thread", json::Array{t.threadM, t.threadN}},
                      {"split_m", t.splitM},
                      {"split_n", t.splitN}};
}
} // namespace

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

/// The protocol a run's times were taken under, from what vibegemm-run
/// reported: sustained-clock when every timed candidate says its timed
/// runs followed sustained ones, else none (times from before it).
static std::string timingProtocol(const std::vector<Candidate> &candidates) {
  bool timed = false;
  for (const Candidate &c : candidates) {
    if (!c.timeMs)
      continue;
    timed = true;
    // Reused only from a run under this build's protocol.
    if (c.measuredInRun)
      continue;
    const json::Object *m = c.measurement ? &*c.measurement : nullptr;
    const json::Object *t = m ? m->getObject("timing") : nullptr;
    if (!t || !t->getString("sustained"))
      return "";
  }
  return timed ? kSustainedClockTiming : "";
}

TuningRun Tuner::toTuningRun(const DispatchRecord &r) const {
  TuningRun run;
  run.signature = r.signature;
  run.target = target;
  run.toolchain = LLVM_VERSION_STRING;
  run.device = measurement.device;
  run.model = client ? client->model() : "";
  run.measured = measurement.enabled;
  run.timing = timingProtocol(r.candidates);
  run.winner = r.winner;
  run.uid = r.runUid;
  for (auto [i, c] : llvm::enumerate(r.candidates)) {
    CandidateRow row = c.toRow(r.scripts[i]);
    row.index = static_cast<int64_t>(i);
    run.candidates.push_back(std::move(row));
  }
  return run;
}

/// A whole-function plan's flops: its dispatches' sum, each GEMM counted
/// once however many buckets of M the host chooses among (an expression
/// of M when one is dynamic).
static json::Value functionFlops(func::FuncOp func,
                                 ArrayRef<DispatchRecord> records) {
  double number = 0;
  std::string expr;
  for (Operation &op : func.getBody().front()) {
    const GemmProblem *problem = nullptr;
    op.walk([&](func::CallOp call) {
      for (const DispatchRecord &r : records)
        if (r.name == call.getCallee() && (!problem || r.problem.mRange))
          problem = &r.problem;
    });
    if (!problem)
      continue;
    if (problem->mRange)
      expr += (expr.empty() ? "" : " + ") +
              planFlops(*problem).getAsString()->str();
    else
      number += problem->flops();
  }
  if (expr.empty())
    return number;
  if (number > 0)
    expr += " + " + std::to_string(static_cast<int64_t>(number));
  return expr;
}

/// The GPUs that measured candidates, as the report lists them.
json::Array Tuner::measurementDevices() const {
  json::Array out;
  if (deviceQueue)
    for (const MeasureDevice &d : deviceQueue->all())
      out.push_back(json::Object{{"ordinal", static_cast<int64_t>(d.ordinal)},
                                 {"cuda_visible_devices", d.visibleId},
                                 {"name", d.name}});
  return out;
}

/// The artifacts of the final compile (the winners) and the reports,
/// written only when everything succeeded, each through a rename.
LogicalResult Tuner::writeArtifacts(ModuleOp module,
                                    std::vector<DispatchRecord> &records) {
  std::map<std::string, std::string> files; // name -> contents
  auto ptxFile = [](StringRef moduleName) {
    return (moduleName.drop_back(strlen("_kernels")) + ".ptx").str();
  };
  json::Array dispatches;
  for (DispatchRecord &record : records) {
    auto binary = module.lookupSymbol<gpu::BinaryOp>(record.name + "_kernels");
    if (!binary)
      return emitError(module.getLoc(), "no gpu.binary for dispatch ")
             << record.name;
    auto dispatchFunc = module.lookupSymbol<func::FuncOp>(record.name);
    FailureOr<json::Object> plan =
        vibegemm::buildLaunchPlan(dispatchFunc, target, ptxFile);
    if (failed(plan))
      return failure();
    decoratePlan(*plan, record, files);
    files[record.name + ".ptx"] = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                                      .getObject()
                                      .getValue()
                                      .str();
    files[record.name + ".plan.json"] =
        formatJson(json::Value(std::move(*plan)));
    files[record.name + ".schedule.mlir"] = record.schedule;

    const GemmProblem &p = record.problem;
    const Candidate &win = record.candidates[record.winner];
    json::Array candidates;
    int64_t llmRequests = 0, promptTokens = 0, cachedTokens = 0,
            completionTokens = 0;
    for (const Candidate &c : record.candidates) {
      candidates.push_back(c.toJson());
      if (c.source != "llm" || c.cached.value_or(false))
        continue;
      ++llmRequests;
      promptTokens += c.promptTokens.value_or(0);
      cachedTokens += c.cachedTokens.value_or(0);
      completionTokens += c.completionTokens.value_or(0);
    }
    json::Object entry{
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
                                 {"transcendental_ops", p.transcendentalOps},
                                 {"flops", p.flops()}}},
        {"builtin_schedule", builtinScheduleJson(record.tiling)},
        {"winner", static_cast<int64_t>(record.winner)},
        {"unverified_best",
         record.unverifiedBest
             ? json::Value(static_cast<int64_t>(*record.unverifiedBest))
             : json::Value(nullptr)},
        {"winner_source", win.source},
        {"winner_script", record.scripts[record.winner]},
        {"candidates", std::move(candidates)}};
    if (record.sameAs)
      entry["tuned_as"] = records[*record.sameAs].name;
    else if (client)
      entry["llm"] = json::Object{{"requests", llmRequests},
                                  {"prompt_tokens", promptTokens},
                                  {"cached_tokens", cachedTokens},
                                  {"completion_tokens", completionTokens},
                                  {"stop_reason", record.stopReason}};
    dispatches.push_back(std::move(entry));
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
    func.walk([&](func::CallOp) { ++calls; });
    if (calls < 2)
      continue;
    FailureOr<json::Object> plan =
        vibegemm::buildLaunchPlan(func, target, ptxFile);
    if (failed(plan))
      return failure();
    (*plan)["flops"] = functionFlops(func, records);
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
      {"target_choice",
       targetWhy.empty() ? json::Value("given") : json::Value(targetWhy)},
      {"scheduler", client ? "llm" : "builtin"},
      {"measure",
       json::Object{
           {"requested", measure},
           {"measured", measurement.enabled},
           {"device", measurement.enabled ? json::Value(measurement.device)
                                          : json::Value(nullptr)},
           {"devices", measurementDevices()},
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
    report["llm"] =
        json::Object{{"endpoint", client->endpoint()},
                     {"model", client->model()},
                     {"rounds", static_cast<int64_t>(rounds)},
                     {"candidates_per_round", static_cast<int64_t>(candidates)},
                     {"requests", stats.requests},
                     {"failed_requests", stats.failed},
                     {"cache_hits", stats.cacheHits},
                     {"cache", cache->enabled() ? "on" : "off"},
                     {"prompt_tokens", stats.promptTokens},
                     {"cached_tokens", stats.cachedTokens},
                     {"completion_tokens", stats.completionTokens},
                     {"llm_concurrency", static_cast<int64_t>(llmConcurrency)},
                     {"tune_dispatches", static_cast<int64_t>(tuneDispatches)},
                     {"token_budget", tokenBudget}};
  report["tuning_seconds"] = tuningSeconds;
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
