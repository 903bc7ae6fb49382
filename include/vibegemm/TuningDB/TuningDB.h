//===- TuningDB.h - Winners and candidate history in SQLite -----*- C++ -*-===//
//
// Every tuning run is recorded: its candidates (script, status, diagnostic,
// time, resources) and, per (dispatch signature, target, toolchain, device),
// the best schedule found so far. A later compile can apply the stored winner
// without an LLM or a GPU. The schema is versioned (PRAGMA user_version) and
// older files are migrated on open; docs/tuning-db.md describes it.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNINGDB_TUNINGDB_H
#define VIBEGEMM_TUNINGDB_TUNINGDB_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace mlir::vibegemm {

/// xxh3 of `text`, 16 hex digits: how the database's `script_hash` and
/// `kernel_hash` columns are written.
std::string hashText(llvm::StringRef text);

/// One candidate of a run, as `candidates` stores it.
struct CandidateRow {
  int64_t index = 0, round = 0;
  std::string source, status, diagnostic, scriptHash, script;
  std::optional<double> timeMs, estimatedMs, tflops;
  std::optional<int64_t> registers, spillBytes, sharedBytes;
  /// Which of the run's GPUs measured it (the report's `device.ordinal`).
  std::optional<int64_t> deviceOrdinal;
  /// A hash of the PTX and launch plan the GPU ran; empty where none was
  /// built (since schema 5).
  std::string kernelHash;
};

/// One tuning run of one dispatch: its candidates and which of them won.
struct TuningRun {
  std::string signature, target, toolchain, device, model;
  bool measured = false;
  /// How measured times were taken (`kSustainedClockTiming` since schema
  /// 3); empty for estimates and for measurements recorded before it.
  std::string timing;
  std::vector<CandidateRow> candidates;
  size_t winner = 0;
  /// The run's id across databases (32 hex digits); empty: a fresh random
  /// one. `merge` keeps it, and skips a run whose id is already stored.
  /// `record` with the uid of a stored run replaces that run's candidates.
  std::string uid;
};

/// The winner a compile applies.
struct StoredWinner {
  std::string script, scriptHash, device, model, timing;
  std::optional<double> timeMs;
  bool measured = false;
};

/// A winner with what `vibegemm-db` shows and exports about it.
struct WinnerInfo {
  std::string signature, target, toolchain;
  std::string script, scriptHash, device, model, timing;
  std::optional<double> timeMs;
  bool measured = false;
  /// The run that produced the winner; none for rows whose run is unknown.
  std::optional<int64_t> runId;
  /// When the winner was first stored and last replaced (UTC, SQLite's
  /// `YYYY-MM-DD HH:MM:SS`).
  std::string created, updated;
  /// Runs and candidates recorded for this (signature, target, toolchain).
  int64_t runs = 0, candidates = 0;
};

/// Which winners `TuningDB::listWinners` returns; an empty field matches
/// any value.
struct WinnerFilter {
  std::string signature, target, toolchain;
  /// Only one winner per (signature, target, toolchain): the one `winner`
  /// picks without a device (what a spec file holds).
  bool bestPerKey = false;
};

/// Which runs `TuningDB::prune` deletes. A run a winner points to is never
/// deleted.
struct PrunePolicy {
  /// Runs created more than this many days ago.
  std::optional<int64_t> olderThanDays;
  /// All but the newest this many runs per (signature, target, toolchain).
  std::optional<int64_t> keepRuns;
};

/// What `TuningDB::prune` deleted.
struct PruneStats {
  int64_t runs = 0, candidates = 0;
};

/// What `TuningDB::merge` did with the other database.
struct MergeStats {
  /// Runs copied (with their candidates), and runs skipped because their
  /// uid was already stored.
  int64_t runsImported = 0, runsPresent = 0;
  /// The other file's winners: stored for a key that had none, replacing
  /// the stored one, or not stored because the stored one is as good.
  int64_t winnersAdded = 0, winnersReplaced = 0, winnersKept = 0;
};

/// The timing protocol of measurements from this build: both vibegemm and
/// cuBLAS timed after half a second of untimed runs, at the clock the GPU
/// holds under sustained load (docs/runtime.md). Times taken before it
/// (empty protocol) ran nearer the boost clock and are not comparable.
inline constexpr const char *kSustainedClockTiming = "sustained-clock";

class TuningDB {
public:
  /// The schema version this build writes; older files are migrated to it.
  static constexpr int kSchemaVersion = 5;
  /// `PRAGMA application_id` of vibegemm files ("vgem").
  static constexpr int kApplicationId = 0x7667656d;

  struct OpenOptions {
    /// Create the file when it does not exist; otherwise that is an error.
    bool create = true;
  };

  /// Opens the database at `path`, creating it (when allowed) and migrating
  /// an older schema to `kSchemaVersion` in one transaction. Refused, and
  /// left untouched: a file that is not SQLite, an SQLite file of another
  /// program, a damaged file (`PRAGMA quick_check`), a newer schema.
  static llvm::Expected<std::unique_ptr<TuningDB>> open(const std::string &path,
                                                        OpenOptions options);
  static llvm::Expected<std::unique_ptr<TuningDB>>
  open(const std::string &path) {
    return open(path, OpenOptions());
  }
  ~TuningDB();

  /// Records a run and its candidates, and makes its winner the stored one
  /// of its device when it beats it: measured beats estimated; a measurement
  /// under a timing protocol beats one recorded without any (the stored time is
  /// not comparable); otherwise, under the same protocol, the lower time.
  /// A measurement without a protocol never replaces one with it. A run
  /// whose uid is stored already is that run again, further on (a tuner
  /// records each round as it ends): its candidates replace the stored
  /// ones. One transaction: readers see all of it or none. Retried while
  /// another writer holds the database, up to the busy timeout (10 s).
  llvm::Error record(const TuningRun &run);

  /// The winner a compile for (signature, target, toolchain) applies.
  /// Winners are stored per device; given a non-empty `device` that has
  /// one, it is that device's. Otherwise the choice is deterministic,
  /// whatever order the rows were written or merged in: measured before
  /// estimated, then one with a timing protocol before one without, then
  /// the lowest time, then the device name (byte order; '' is "no GPU").
  std::optional<StoredWinner> winner(const std::string &signature,
                                     const std::string &target,
                                     const std::string &toolchain,
                                     const std::string &device = "");

  /// How a script ended in an earlier measured run.
  struct PastResult {
    std::string status, diagnostic;
    std::optional<double> timeMs;
    int64_t runId = 0;
    std::optional<double> tflops;
  };
  /// The latest measured run on `device` in which the script hashed
  /// `scriptHash` ended in one of `statuses`, if any.
  std::optional<PastResult>
  pastResult(const std::string &signature, const std::string &target,
             const std::string &toolchain, const std::string &device,
             const std::string &scriptHash,
             llvm::ArrayRef<llvm::StringRef> statuses);

  /// The latest verified time of the kernel hashed `kernelHash` on
  /// `device` under the timing protocol `timing`, if one is stored. The
  /// hash covers the PTX and the launch plan, so a compiler that lowers a
  /// script differently, or another launch mode, finds nothing.
  std::optional<PastResult> pastMeasurement(const std::string &signature,
                                            const std::string &target,
                                            const std::string &device,
                                            const std::string &timing,
                                            const std::string &kernelHash);

  /// The winners that `filter` selects, sorted by signature, target,
  /// toolchain, device (byte order).
  llvm::Expected<std::vector<WinnerInfo>>
  listWinners(const WinnerFilter &filter = {});

  /// The candidates of one run, by index.
  llvm::Expected<std::vector<CandidateRow>> runCandidates(int64_t runId);

  /// Deletes runs (and their candidates) that match `policy`, keeping every
  /// run a winner points to. One transaction.
  llvm::Expected<PruneStats> prune(const PrunePolicy &policy);

  /// Stores `w` (signature, target, toolchain, script, time, measured,
  /// device, model) as it came from a spec file: recorded as a run with one
  /// candidate of source "import", which becomes the winner under the rules
  /// of `record`. Returns whether it did.
  llvm::Expected<bool> importWinner(const WinnerInfo &w);

  /// Copies the database at `otherPath` into this one, in one transaction:
  /// every run (and its candidates) whose uid is not stored yet, under a
  /// new id; then each of its winners, per (signature, target, toolchain,
  /// device), under the rules of `record` (the faster measurement wins,
  /// measured beats estimated, an equal time keeps the stored one). A
  /// losing winner's run stays in the history. Merging the same file again
  /// changes nothing. `otherPath` is opened as `open` does (a file it
  /// refuses is refused here, and this database is left unchanged; an
  /// older schema is migrated in place) and only read otherwise.
  llvm::Expected<MergeStats> merge(const std::string &otherPath);

  /// The schema version of the open file (after migration).
  int schemaVersion();

private:
  explicit TuningDB(sqlite3 *db) : db(db) {}
  /// Runs `body` (which returns an SQLite result code) inside BEGIN
  /// IMMEDIATE ... COMMIT, rolling back on failure and starting again while
  /// SQLite answers busy or locked, until the busy timeout.
  llvm::Error writeTransaction(const std::string &what,
                               llvm::function_ref<int()> body);
  /// record()'s body; sets `*becameWinner`.
  int recordRun(const TuningRun &run, bool *becameWinner);
  /// recordRun's second half: the candidates of run `runId`, and its
  /// winner where it beats the stored one.
  int recordCandidates(const TuningRun &run, int64_t runId,
                       const std::string &timing, bool *becameWinner);
  sqlite3 *db;
};

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TUNINGDB_TUNINGDB_H
