//===- Prompts.cpp - Prompt templates and the text filled into them -------===//
//
// Loads the templates (built in, or from `prompts-dir`) and writes what the
// tuner fills into them: the problem, the target's facts and the history
// of candidates so far.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Tuner/Prompts.h"
#include "Tuner.h"
#include "vibegemm/Scheduler/ScriptCheck.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::tuner;

namespace {
struct EmbeddedFile {
  const char *name;
  const char *text;
};
const EmbeddedFile kPromptFiles[] = {
#include "EmbeddedPrompts.inc"
};

llvm::Expected<std::string> readPrompt(llvm::StringRef dir,
                                       llvm::StringRef name) {
  if (dir.empty()) {
    for (const EmbeddedFile &f : kPromptFiles)
      if (name == f.name)
        return std::string(f.text);
    // The allowlist is ScriptCheck's, which every compile checks scripts
    // against.
    if (name == "allowlist.txt")
      return builtinAllowlistText().str();
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no built-in prompt " + name);
  }
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read prompt file " + path);
  return (*buffer)->getBuffer().str();
}
} // namespace

llvm::Expected<PromptTemplates>
vibegemm::loadPromptTemplates(llvm::StringRef directory) {
  PromptTemplates t;
  std::pair<const char *, std::string *> files[] = {
      {"system.md", &t.system},
      {"round.md", &t.round},
      {"allowed-ops.md", &t.allowedOps},
      {"allowlist.txt", &t.allowlist}};
  for (auto [name, out] : files) {
    llvm::Expected<std::string> text = readPrompt(directory, name);
    if (!text)
      return text.takeError();
    *out = std::move(*text);
  }
  return t;
}

std::string
vibegemm::fillTemplate(llvm::StringRef text,
                       const std::map<std::string, std::string> &values) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t open = text.find("{{");
    if (open == llvm::StringRef::npos) {
      out += text;
      break;
    }
    size_t close = text.find("}}", open + 2);
    if (close == llvm::StringRef::npos) {
      out += text;
      break;
    }
    out += text.take_front(open);
    std::string key = text.slice(open + 2, close).str();
    auto it = values.find(key);
    out += it != values.end() ? it->second : text.slice(open, close + 2).str();
    text = text.drop_front(close + 2);
  }
  return out;
}

/// The history part of a prompt: every candidate so far, and the scripts
/// of the latest few.
std::string Tuner::historyText(const DispatchRecord &record) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "| # | source | round | status | time | registers | spills | "
        "diagnostic |\n|---|---|---|---|---|---|---|---|\n";
  for (const Candidate &c : record.candidates) {
    std::string diag = c.diagnostic;
    std::replace(diag.begin(), diag.end(), '\n', ' ');
    std::replace(diag.begin(), diag.end(), '|', '/');
    if (diag.size() > 300)
      diag = diag.substr(0, 300) + "...";
    os << "| " << c.index << " | " << c.source << " | " << c.round << " | "
       << stringifyCandidateStatus(c.status) << " | " << formatMs(c) << " | "
       << (c.resource("registers") ? std::to_string(*c.resource("registers"))
                                   : "-")
       << " | "
       << (c.resource("spill_bytes")
               ? std::to_string(*c.resource("spill_bytes"))
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
       << stringifyCandidateStatus(record.candidates[i].status)
       << "):\n```mlir\n"
       << record.scripts[i] << "\n```\n";
  }
  return s;
}

std::string Tuner::problemText(const DispatchRecord &r) {
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

std::string Tuner::targetText() {
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
