//===- vibegemm-db.cpp - Inspect and move the tuning database -------------===//
//
// The user's command for the SQLite tuning database that
// `--llm-schedule="db=PATH"` fills: list the winners, show one with its
// run's candidates, export the winners as a tuning spec (.mlir) to check into
// a repository, import such a spec or merge other tuning databases (the
// shards of a Slurm array, docs/tuning-at-scale.md), prune old runs. Errors are
// one line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TuningDB/TuningDB.h"
#include "vibegemm/TuningDB/TuningSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir::vibegemm;
namespace cl = llvm::cl;

static cl::SubCommand listCommand(
    "list", "One line per stored winner: signature, target, toolchain, best "
            "time, device, date, model, runs and candidates");
static cl::SubCommand showCommand(
    "show", "The winner of a signature: its script and its run's candidates");
static cl::SubCommand
    exportCommand("export", "Write the winners as a tuning spec (.mlir) for "
                            "vibegemm-compile=\"specs=FILE\"");
static cl::SubCommand
    importCommand("import",
                  "Store the schedules of tuning specs, or merge the runs and "
                  "winners of other tuning databases, where they beat the "
                  "stored winners");
static cl::SubCommand
    pruneCommand("prune",
                 "Delete old runs and their candidates; a winner's run stays");

static cl::opt<std::string> dbPath(cl::Positional, cl::Required,
                                   cl::desc("<database>"), cl::sub(listCommand),
                                   cl::sub(showCommand), cl::sub(exportCommand),
                                   cl::sub(importCommand),
                                   cl::sub(pruneCommand));
static cl::opt<std::string> signature(cl::Positional, cl::Required,
                                      cl::desc("<signature or its prefix>"),
                                      cl::sub(showCommand));
static cl::list<std::string> importPaths(cl::Positional, cl::OneOrMore,
                                         cl::desc("<spec.mlir | other.sqlite>"),
                                         cl::sub(importCommand));
static cl::opt<std::string> outputPath("o", cl::desc("Output spec file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::sub(exportCommand));
static cl::opt<std::string>
    target("target", cl::desc("Only winners for this target (e.g. sm_90)"),
           cl::sub(listCommand), cl::sub(showCommand), cl::sub(exportCommand));
static cl::opt<std::string> toolchain(
    "toolchain", cl::desc("Only winners for this toolchain (LLVM version)"),
    cl::sub(listCommand), cl::sub(showCommand), cl::sub(exportCommand));
static cl::opt<int64_t>
    olderThan("older-than",
              cl::desc("Delete runs created more than this many days ago"),
              cl::value_desc("days"), cl::init(-1), cl::sub(pruneCommand));
static cl::opt<int64_t>
    keepRuns("keep-runs",
             cl::desc("Keep only the newest this many runs per signature, "
                      "target and toolchain"),
             cl::value_desc("count"), cl::init(-1), cl::sub(pruneCommand));

namespace {

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "vibegemm-db: error: " << message << "\n";
  std::exit(1);
}

void check(llvm::Error error) {
  if (error)
    fail(llvm::toString(std::move(error)));
}

template <typename T>
T check(llvm::Expected<T> value) {
  if (!value)
    fail(llvm::toString(value.takeError()));
  return std::move(*value);
}

std::unique_ptr<TuningDB> openDB(bool create) {
  TuningDB::OpenOptions options;
  options.create = create;
  return check(TuningDB::open(dbPath, options));
}

std::string formatMs(std::optional<double> ms) {
  if (!ms)
    return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4g ms", *ms);
  return buf;
}

std::string orDash(const std::string &s) { return s.empty() ? "-" : s; }

std::string plural(int64_t n, llvm::StringRef noun) {
  return std::to_string(n) + " " + noun.str() + (n == 1 ? "" : "s");
}

/// Prints rows as columns two spaces apart, the last one unpadded.
void printTable(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths;
  for (const auto &row : rows)
    for (auto [i, cell] : llvm::enumerate(row)) {
      widths.resize(std::max(widths.size(), i + 1));
      widths[i] = std::max(widths[i], cell.size());
    }
  for (const auto &row : rows) {
    std::string line;
    for (auto [i, cell] : llvm::enumerate(row)) {
      line += cell;
      if (i + 1 < row.size())
        line += std::string(widths[i] - cell.size() + 2, ' ');
    }
    llvm::outs() << llvm::StringRef(line).rtrim() << "\n";
  }
}

/// "estimated", "measured" (before timing protocols) or "measured/PROTOCOL".
std::string timingOf(const WinnerInfo &w) {
  if (!w.measured)
    return "estimated";
  return w.timing.empty() ? "measured" : "measured/" + w.timing;
}

int list() {
  std::unique_ptr<TuningDB> db = openDB(/*create=*/false);
  WinnerFilter filter;
  filter.target = target;
  filter.toolchain = toolchain;
  std::vector<WinnerInfo> winners = check(db->listWinners(filter));
  std::vector<std::vector<std::string>> rows = {
      {"SIGNATURE", "TARGET", "TOOLCHAIN", "BEST", "TIMING", "DEVICE", "DATE",
       "MODEL", "RUNS", "CANDIDATES"}};
  for (const WinnerInfo &w : winners)
    rows.push_back({w.signature, w.target, w.toolchain, formatMs(w.timeMs),
                    timingOf(w), orDash(w.device),
                    w.updated, orDash(w.model), std::to_string(w.runs),
                    std::to_string(w.candidates)});
  printTable(rows);
  return 0;
}

int show() {
  std::unique_ptr<TuningDB> db = openDB(/*create=*/false);
  WinnerFilter filter;
  filter.signature = signature;
  filter.target = target;
  filter.toolchain = toolchain;
  std::vector<WinnerInfo> winners = check(db->listWinners(filter));
  if (winners.empty()) {
    // Signatures are long: a prefix names every signature it starts.
    filter.signature.clear();
    winners = check(db->listWinners(filter));
    llvm::erase_if(winners, [](const WinnerInfo &w) {
      return !llvm::StringRef(w.signature).starts_with(signature);
    });
  }
  if (winners.empty())
    fail("no winner for signature " + signature +
         (target.empty() ? "" : " on " + target) + " in " + dbPath);
  for (auto [i, w] : llvm::enumerate(winners)) {
    if (i > 0)
      llvm::outs() << "\n";
    llvm::outs() << "signature:  " << w.signature << "\n"
                 << "target:     " << w.target << " (toolchain " << w.toolchain
                 << ")\n"
                 << "best:       " << formatMs(w.timeMs) << " ("
                 << timingOf(w) << ") on "
                 << (w.device.empty() ? "no GPU" : w.device) << "\n"
                 << "model:      "
                 << (w.model.empty() ? "none (built-in scheduler)" : w.model)
                 << "\n"
                 << "stored:     " << w.updated << " (first " << w.created
                 << ")\n"
                 << "history:    " << plural(w.runs, "run") << ", "
                 << plural(w.candidates, "candidate") << "\n"
                 << "script (hash " << orDash(w.scriptHash) << "):\n"
                 << w.script << "\n";
    if (!w.runId) {
      llvm::outs() << "\nthe run of this winner is not recorded\n";
      continue;
    }
    std::vector<CandidateRow> candidates = check(db->runCandidates(*w.runId));
    llvm::outs() << "\ncandidates of run " << *w.runId << ":\n";
    std::vector<std::vector<std::string>> rows = {{"IDX", "SOURCE", "ROUND",
                                                   "STATUS", "TIME", "REGS",
                                                   "SPILLS", "DIAGNOSTIC"}};
    auto orDashInt = [](std::optional<int64_t> v) {
      return v ? std::to_string(*v) : std::string("-");
    };
    for (const CandidateRow &c : candidates) {
      std::string time = c.timeMs        ? formatMs(c.timeMs)
                         : c.estimatedMs ? formatMs(c.estimatedMs) + " (est.)"
                                         : "-";
      std::string diagnostic =
          llvm::StringRef(c.diagnostic).split('\n').first.str();
      if (diagnostic.size() > 100)
        diagnostic = diagnostic.substr(0, 100) + "...";
      rows.push_back({std::to_string(c.index), orDash(c.source),
                      std::to_string(c.round), orDash(c.status), time,
                      orDashInt(c.registers), orDashInt(c.spillBytes),
                      diagnostic});
    }
    printTable(rows);
  }
  return 0;
}

int exportSpec() {
  std::unique_ptr<TuningDB> db = openDB(/*create=*/false);
  WinnerFilter filter;
  filter.target = target;
  filter.toolchain = toolchain;
  // A spec holds one schedule per key: the one a compile would take from
  // the database.
  filter.bestPerKey = true;
  std::vector<WinnerInfo> winners = check(db->listWinners(filter));
  std::string text = check(writeSpec(winners));
  check(llvm::writeToOutput(outputPath, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  }));
  llvm::errs() << "vibegemm-db: exported "
               << plural(static_cast<int64_t>(winners.size()), "schedule")
               << (outputPath == "-" ? "" : " to " + outputPath) << "\n";
  return 0;
}

/// Whether `path` starts with SQLite's header ("SQLite format 3\0"),
/// whatever its name.
bool isSQLiteFile(const std::string &path) {
  if (path == "-")
    return false;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> head =
      llvm::MemoryBuffer::getFileSlice(path, 16, 0);
  return head &&
         (*head)->getBuffer() == llvm::StringRef("SQLite format 3\0", 16);
}

/// The schedules of the spec at `specPath`; fails on an unreadable or
/// malformed one.
std::vector<WinnerInfo> readSpecFile(const std::string &specPath) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(specPath, /*IsText=*/true);
  if (!file)
    fail("cannot read tuning spec " + specPath + ": " +
         file.getError().message());
  return check(readSpec((*file)->getBuffer(), specPath));
}

int importFiles() {
  // Every input is read (a spec) or checked (a database to merge) before
  // DB is created or changed, so a bad one leaves it as it was.
  std::vector<std::optional<std::vector<WinnerInfo>>> specs;
  for (const std::string &path : importPaths) {
    if (!isSQLiteFile(path)) {
      specs.push_back(readSpecFile(path));
      continue;
    }
    TuningDB::OpenOptions options;
    options.create = false;
    check(TuningDB::open(path, options));
    specs.push_back(std::nullopt);
  }
  std::unique_ptr<TuningDB> db = openDB(/*create=*/true);
  for (auto [path, spec] : llvm::zip_equal(importPaths, specs)) {
    if (!spec) {
      MergeStats stats = check(db->merge(path));
      llvm::outs() << path << ": imported " << plural(stats.runsImported, "run")
                   << " (" << stats.runsPresent
                   << " already present); winners: " << stats.winnersAdded
                   << " added, " << stats.winnersReplaced << " replaced, "
                   << stats.winnersKept << " kept\n";
      continue;
    }
    for (const WinnerInfo &w : *spec) {
      bool stored = check(db->importWinner(w));
      llvm::outs() << w.signature << " (" << w.target << ", " << w.toolchain
                   << "): "
                   << (stored ? "stored as the winner"
                              : "kept the stored winner, which is as good or "
                                "better")
                   << "\n";
    }
  }
  return 0;
}

int prune() {
  if (olderThan < 0 && keepRuns < 0)
    fail("prune needs --older-than=DAYS or --keep-runs=COUNT");
  std::unique_ptr<TuningDB> db = openDB(/*create=*/false);
  PrunePolicy policy;
  if (olderThan >= 0)
    policy.olderThanDays = olderThan;
  if (keepRuns >= 0)
    policy.keepRuns = keepRuns;
  PruneStats stats = check(db->prune(policy));
  llvm::outs() << "pruned " << plural(stats.runs, "run") << " and "
               << plural(stats.candidates, "candidate") << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Only this tool's options in --help, not those of the LLVM library.
  static cl::OptionCategory category("vibegemm-db options");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "vibegemm tuning database\n\n"
      "  vibegemm-db list DB\n"
      "  vibegemm-db show DB SIGNATURE (or a prefix of it)\n"
      "  vibegemm-db export DB -o SPEC.mlir [--target=sm_90]\n"
      "  vibegemm-db import DB SPEC.mlir | OTHER.sqlite...\n"
      "  vibegemm-db prune DB --older-than=DAYS | --keep-runs=COUNT\n");
  if (listCommand)
    return list();
  if (showCommand)
    return show();
  if (exportCommand)
    return exportSpec();
  if (importCommand)
    return importFiles();
  if (pruneCommand)
    return prune();
  fail("expected a command: list, show, export, import or prune (see "
       "--help)");
}
