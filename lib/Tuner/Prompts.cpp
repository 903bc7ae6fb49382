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
#include "vibegemm/Target/TargetInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <tuple>

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

namespace {
/// How much of an op's section the system prompt shows.
enum class SystemPart { Brief, Name, Omit };

/// One `### `op`` section of allowed-ops.md, split by its markup.
struct OpSection {
  llvm::StringRef name; ///< "transform.structured.pad"
  SystemPart part = SystemPart::Brief;
  llvm::SmallVector<llvm::StringRef> needs; ///< "wgmma", "tma", "clusters"
  std::string brief;                        ///< Up to `<!-- more -->`.
  std::string more;                         ///< After it; may be empty.
};

struct OpReference {
  std::string preamble; ///< Text before the first `## `, markup stripped.
  std::vector<OpSection> sections;
};

/// The text of an HTML comment line `<!-- x -->`, or "" for other lines.
llvm::StringRef commentText(llvm::StringRef line) {
  line = line.trim();
  if (!line.consume_front("<!--") || !line.consume_back("-->"))
    return "";
  return line.trim();
}

bool isCommentLine(llvm::StringRef line) {
  llvm::StringRef trimmed = line.trim();
  return trimmed.starts_with("<!--");
}

/// Splits allowed-ops.md into its preamble and op sections. A section is a
/// `### `op`` heading, an optional tag line `<!-- system: brief|name|omit;
/// needs: wgmma, tma -->`, and a body that an optional `<!-- more -->`
/// line splits. Comments spanning several lines belong to the file's
/// maintainers and are dropped.
OpReference parseOpReference(llvm::StringRef text) {
  OpReference ref;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  OpSection *section = nullptr;
  bool inMore = false, inComment = false, inFence = false, inGroup = false;
  for (llvm::StringRef line : lines) {
    if (!inFence && inComment) {
      if (line.contains("-->"))
        inComment = false;
      continue;
    }
    if (line.starts_with("```"))
      inFence = !inFence;
    if (!inFence && line.starts_with("## ")) {
      // Group headings and their prose are for readers of the file.
      section = nullptr;
      inGroup = true;
      continue;
    }
    if (!inFence && line.starts_with("### `")) {
      llvm::StringRef name = line.drop_front(5);
      name = name.take_until([](char c) { return c == '`'; });
      ref.sections.push_back({name});
      section = &ref.sections.back();
      inMore = false;
      continue;
    }
    if (!inFence && isCommentLine(line)) {
      llvm::StringRef comment = commentText(line);
      if (comment.empty() && !line.contains("-->")) {
        inComment = true;
        continue;
      }
      if (!section)
        continue;
      if (comment == "more") {
        inMore = true;
        continue;
      }
      llvm::SmallVector<llvm::StringRef> tags;
      comment.split(tags, ';', -1, false);
      for (llvm::StringRef tag : tags) {
        auto [key, value] = tag.split(':');
        key = key.trim();
        value = value.trim();
        if (key == "system")
          section->part = value == "omit"   ? SystemPart::Omit
                          : value == "name" ? SystemPart::Name
                                            : SystemPart::Brief;
        else if (key == "needs")
          value.split(section->needs, ',', -1, false);
      }
      for (llvm::StringRef &need : section->needs)
        need = need.trim();
      continue;
    }
    if (!section && inGroup)
      continue;
    std::string &out =
        !section ? ref.preamble : (inMore ? section->more : section->brief);
    out += line;
    out += '\n';
  }
  return ref;
}

/// Whether `target` has the capability `need` names.
bool hasCapability(const TargetInfo &target, llvm::StringRef need) {
  if (need == "wgmma")
    return target.hasWgmma;
  if (need == "tma")
    return target.hasTma;
  if (need == "clusters")
    return target.hasClusters;
  return false; // An unknown capability: no target has it.
}

/// The first capability of `section` that `target` lacks, or "".
llvm::StringRef missingCapability(const OpSection &section,
                                  const TargetInfo &target) {
  for (llvm::StringRef need : section.needs)
    if (!hasCapability(target, need))
      return need;
  return "";
}

/// `text` without leading and trailing blank lines and with runs of blank
/// lines collapsed to one.
std::string compact(llvm::StringRef text) {
  std::string out;
  bool blank = false;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.rtrim();
    if (line.empty()) {
      blank = !out.empty();
      continue;
    }
    if (blank)
      out += '\n';
    blank = false;
    out += line;
    out += '\n';
  }
  return out;
}

/// Whether `text` names `op` as a whole op name: not as the prefix or
/// suffix of a longer one (tile_using_for in tile_using_forall).
bool namesOp(llvm::StringRef text, llvm::StringRef op) {
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.';
  };
  for (size_t at = text.find(op); at != llvm::StringRef::npos;
       at = text.find(op, at + 1)) {
    if (at > 0 && isNameChar(text[at - 1]))
      continue;
    llvm::StringRef after = text.drop_front(at + op.size());
    // A sentence's full stop may follow the name; a dotted suffix may not.
    if (!after.empty() && isNameChar(after[0]) &&
        !(after[0] == '.' && (after.size() == 1 || !isNameChar(after[1]))))
      continue;
    return true;
  }
  return false;
}

/// A brief section as lines of one mlir block: its prose as `//` comment
/// lines, then its examples.
std::string asCommentedExample(llvm::StringRef brief) {
  std::string prose, code;
  bool inFence = false;
  llvm::SmallVector<llvm::StringRef> lines;
  brief.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (line.starts_with("```")) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      code += line.rtrim();
      code += '\n';
    } else if (!line.trim().empty()) {
      prose += prose.empty() ? "// " : " ";
      prose += line.trim();
    }
  }
  return (prose.empty() ? "" : prose + "\n") + code;
}
} // namespace

std::string vibegemm::systemOpReference(llvm::StringRef allowedOps,
                                        const TargetInfo &target) {
  OpReference ref = parseOpReference(allowedOps);
  std::string out = compact(ref.preamble);
  std::string examples;
  // Ops listed by name only, grouped by the prefix before their last dot.
  std::vector<std::pair<std::string, std::vector<std::string>>> named;
  for (const OpSection &s : ref.sections) {
    if (s.part == SystemPart::Omit || !missingCapability(s, target).empty())
      continue;
    if (s.part == SystemPart::Name) {
      auto [prefix, leaf] = s.name.rsplit('.');
      auto it = llvm::find_if(
          named, [&](const auto &entry) { return entry.first == prefix; });
      if (it == named.end())
        it = named.insert(named.end(), {prefix.str(), {}});
      it->second.push_back(leaf.str());
      continue;
    }
    // One mlir block: each op's summary as a comment above its examples.
    examples += asCommentedExample(s.brief);
  }
  if (!examples.empty())
    out += "\n```mlir\n" + examples + "```\n";
  if (!named.empty()) {
    out += "\nAlso allowed (pattern sets go inside `transform.apply_patterns`, "
           "one a line; when a failure names one of these ops, the next "
           "request shows its syntax):\n";
    for (const auto &[prefix, leaves] : named)
      out += "- `" + prefix + ".`" + llvm::join(leaves, ", ") + "\n";
  }
  return out;
}

std::string
vibegemm::userOpReference(llvm::StringRef allowedOps, const TargetInfo &target,
                          llvm::ArrayRef<std::string> failureDiagnostics) {
  OpReference ref = parseOpReference(allowedOps);
  std::string out;
  for (const OpSection &s : ref.sections) {
    llvm::StringRef missing = missingCapability(s, target);
    // The system prompt already shows the whole section.
    if (s.part == SystemPart::Brief && missing.empty() &&
        compact(s.more).empty())
      continue;
    if (!llvm::any_of(failureDiagnostics,
                      [&](const std::string &d) { return namesOp(d, s.name); }))
      continue;
    out += "\n### `" + s.name.str() + "`\n";
    if (!missing.empty())
      out += "Not available on target " + target.name.str() + " (it needs " +
             missing.str() + "): do not use it.\n";
    else
      out += compact(s.brief + "\n" + s.more);
  }
  if (out.empty())
    return "";
  return "## Reference for the ops named in the failures above\n" + out;
}

std::string vibegemm::scriptChoiceLines(llvm::StringRef script,
                                        llvm::StringRef diagnostic) {
  unsigned blamed = 0;
  size_t at = diagnostic.find("script:");
  if (at != llvm::StringRef::npos)
    (void)diagnostic.drop_front(at + 7)
        .take_while(llvm::isDigit)
        .getAsInteger(10, blamed);
  static const char *const kChoices[] = {
      "tune.knob",  "tile_sizes",        "num_threads",  "vector_sizes",
      "block_dims", "total_num_threads", "split_factor", "transform.vibegemm."};
  std::string out;
  llvm::SmallVector<llvm::StringRef> lines;
  script.split(lines, '\n');
  for (auto [index, line] : llvm::enumerate(lines)) {
    unsigned number = index + 1;
    llvm::StringRef text = line.trim();
    if (number == blamed) {
      out += llvm::formatv("{0,4}! {1}\n", number, text).str();
      continue;
    }
    if (!llvm::any_of(kChoices, [&](const char *choice) {
          return text.contains(choice);
        }))
      continue;
    auto [results, op] = text.split(" = ");
    if (op.empty() || !results.starts_with("%"))
      std::tie(results, op) = std::make_pair(llvm::StringRef(), text);
    llvm::StringRef knob = op;
    if (knob.consume_front("transform.tune.knob<")) {
      auto [name, rest] = knob.split("> = ");
      out +=
          llvm::formatv("{0,4}: {1} = knob {2} = {3}\n", number, results, name,
                        rest.take_until([](char c) { return c == ' '; }))
              .str();
      continue;
    }
    size_t types = op.find(" : (");
    if (types == llvm::StringRef::npos)
      types = op.find(" : !");
    out += llvm::formatv("{0,4}: {1}\n", number, op.take_front(types)).str();
  }
  return out;
}

/// The history part of a prompt: every candidate so far, and the choices
/// of the latest few scripts, whose diagnostics are kept longer.
std::string Tuner::historyText(const DispatchRecord &record) {
  constexpr size_t kScriptsShown = 3;
  size_t first = record.scripts.size() > kScriptsShown
                     ? record.scripts.size() - kScriptsShown
                     : 1;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "| # | source | round | status | time | launches | registers | "
        "spills | diagnostic |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Candidate &c : record.candidates) {
    std::string diag = c.diagnostic;
    std::replace(diag.begin(), diag.end(), '\n', ' ');
    std::replace(diag.begin(), diag.end(), '|', '/');
    size_t limit = static_cast<size_t>(c.index) >= first ? 300 : 120;
    if (diag.size() > limit)
      diag = diag.substr(0, limit) + "...";
    os << "| " << c.index << " | " << c.source << " | " << c.round << " | "
       << stringifyCandidateStatus(c.status) << " | " << formatMs(c) << " | "
       << c.launchFit.value_or("-") << " | "
       << (c.resource("registers") ? std::to_string(*c.resource("registers"))
                                   : "-")
       << " | "
       << (c.resource("spill_bytes")
               ? std::to_string(*c.resource("spill_bytes"))
               : "-")
       << " | " << diag << " |\n";
  }
  bool header = false;
  for (size_t i = first; i < record.scripts.size(); ++i) {
    if (record.scripts[i].empty())
      continue;
    if (!header) {
      os << "\nThe choices of the latest scripts (line number: the op "
            "without its results and types; `!` marks the line a "
            "diagnostic points at, whole):\n";
      header = true;
    }
    os << "\nCandidate " << i << " ("
       << stringifyCandidateStatus(record.candidates[i].status) << ")";
    if (i == record.winner) {
      os << ": the best schedule above.\n";
      continue;
    }
    auto end = record.scripts.begin() + i;
    auto same = std::find(record.scripts.begin(), end, record.scripts[i]);
    if (same != end) {
      os << ": the same script as candidate " << (same - record.scripts.begin())
         << ".\n";
      continue;
    }
    os << ":\n```\n"
       << scriptChoiceLines(record.scripts[i], record.candidates[i].diagnostic)
       << "```\n";
  }
  return s;
}

/// cuBLAS's time for the dispatch's GEMM alone, from the built-in
/// candidate's measurement (which times cuBLAS beside it), as a sentence
/// for the prompt; empty where nothing measured it.
std::string Tuner::vendorTimeText(const DispatchRecord &record) {
  for (const Candidate &c : record.candidates) {
    if (c.source != "builtin" || !c.measurement)
      continue;
    const llvm::json::Object *cublas = c.measurement->getObject("cublas");
    std::optional<double> ms =
        cublas ? cublas->getNumber("time_ms") : std::nullopt;
    if (!ms)
      return "";
    return " cuBLAS's GEMM alone (without the fused ops), timed on the same "
           "GPU in this run: " +
           significantMs(*ms) + " ms.";
  }
  return "";
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
