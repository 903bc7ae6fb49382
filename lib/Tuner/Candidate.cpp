//===- Candidate.cpp - One schedule the tuner tried -----------------------===//
//
// The status strings and report.json's field names of a candidate, in one
// place.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Tuner/Candidate.h"

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;
namespace json = llvm::json;

namespace {
struct StatusName {
  CandidateStatus status;
  llvm::StringLiteral name;
};
constexpr StatusName kStatusNames[] = {
    {CandidateStatus::Ok, "ok"},
    {CandidateStatus::ParseError, "parse-error"},
    {CandidateStatus::RejectedOp, "rejected-op"},
    {CandidateStatus::RejectedValue, "rejected-value"},
    {CandidateStatus::ApplyError, "apply-error"},
    {CandidateStatus::LoweringError, "lowering-error"},
    {CandidateStatus::PtxasError, "ptxas-error"},
    {CandidateStatus::LLMError, "llm-error"},
    {CandidateStatus::Skipped, "skipped"},
    {CandidateStatus::WrongResult, "wrong-result"},
    {CandidateStatus::Fault, "fault"},
    {CandidateStatus::Timeout, "timeout"},
};
} // namespace

llvm::StringRef tuner::stringifyCandidateStatus(CandidateStatus status) {
  for (const StatusName &s : kStatusNames)
    if (s.status == status)
      return s.name;
  llvm_unreachable("unknown candidate status");
}

std::optional<CandidateStatus>
tuner::parseCandidateStatus(llvm::StringRef name) {
  for (const StatusName &s : kStatusNames)
    if (s.name == name)
      return s.status;
  return std::nullopt;
}

std::optional<int64_t> Candidate::resource(llvm::StringRef key) const {
  return resources ? resources->getInteger(key) : std::nullopt;
}

json::Object Candidate::toJson() const {
  json::Object o{{"index", index},
                 {"source", source},
                 {"round", round},
                 {"status", stringifyCandidateStatus(status)},
                 {"diagnostic", diagnostic}};
  auto orNull = [](const std::optional<double> &v) {
    return v ? json::Value(*v) : json::Value(nullptr);
  };
  if (variant)
    o["variant"] = *variant;
  if (cached)
    o["cached"] = *cached;
  if (promptTokens)
    o["prompt_tokens"] = *promptTokens;
  if (cachedTokens)
    o["cached_tokens"] = *cachedTokens;
  if (completionTokens)
    o["completion_tokens"] = *completionTokens;
  if (scriptHash)
    o["script_hash"] = *scriptHash;
  if (kernelHash)
    o["kernel_hash"] = *kernelHash;
  if (measuredInRun)
    o["measured_in_run"] = *measuredInRun;
  if (evaluated) {
    o["time_ms"] = orNull(timeMs);
    o["tflops"] = orNull(tflops);
    o["timing"] = timing;
    o["roofline_ms"] = rooflineMs;
  }
  if (resources)
    for (const auto &kv : *resources)
      o[kv.first] = kv.second;
  if (ptxasMissing)
    o["ptxas"] = "not found; resources unknown";
  if (dynamicSharedBytes)
    o["dynamic_shared_bytes"] = *dynamicSharedBytes;
  if (launchFit)
    o["launch_fit"] = *launchFit;
  if (estimatedMs)
    o["estimated_ms"] = *estimatedMs;
  if (files)
    o["files"] = *files;
  if (filesError)
    o["files_error"] = *filesError;
  if (deviceOrdinal)
    o["device"] =
        json::Object{{"ordinal", static_cast<int64_t>(*deviceOrdinal)},
                     {"name", deviceName},
                     {"start_s", measureStart},
                     {"end_s", measureEnd}};
  if (measurement)
    o["measurement"] = json::Object(*measurement);
  if (measureError)
    o["measure_error"] = *measureError;
  return o;
}

CandidateRow Candidate::toRow(std::string script) const {
  CandidateRow row;
  row.index = index;
  row.round = round;
  row.source = source;
  row.status = stringifyCandidateStatus(status).str();
  row.diagnostic = diagnostic;
  row.scriptHash = scriptHash.value_or("");
  // A reused time keeps pointing at the run that measured it.
  if (!measuredInRun)
    row.kernelHash = kernelHash.value_or("");
  row.script = std::move(script);
  row.timeMs = timeMs;
  row.estimatedMs = estimatedMs;
  row.tflops = tflops;
  row.registers = resource("registers");
  row.spillBytes = resource("spill_bytes");
  row.sharedBytes = resource("shared_bytes");
  if (deviceOrdinal)
    row.deviceOrdinal = *deviceOrdinal;
  return row;
}
