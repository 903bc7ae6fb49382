//===- TuningDB.h - Winners and candidate history in SQLite -----*- C++ -*-===//
//
// Every tuning run is recorded: its candidates (script, status, diagnostic,
// time, resources) and, per (dispatch signature, target, toolchain), the
// best schedule found so far. A later compile can apply the stored winner
// without an LLM or a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNINGDB_TUNINGDB_H
#define VIBEGEMM_TUNINGDB_TUNINGDB_H

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace mlir::vibegemm {

struct CandidateRow {
  int64_t index = 0, round = 0;
  std::string source, status, diagnostic, scriptHash, script;
  std::optional<double> timeMs, estimatedMs, tflops;
  std::optional<int64_t> registers, spillBytes, sharedBytes;
};

struct TuningRun {
  std::string signature, target, toolchain, device, model;
  bool measured = false;
  std::vector<CandidateRow> candidates;
  size_t winner = 0;
};

struct StoredWinner {
  std::string script, scriptHash, device, model;
  std::optional<double> timeMs;
  bool measured = false;
};

class TuningDB {
public:
  /// Opens or creates the database at `path`. A file that is not a
  /// vibegemm tuning database is refused and left untouched.
  static llvm::Expected<std::unique_ptr<TuningDB>> open(const std::string &path);
  ~TuningDB();

  /// Records a run and its candidates, and makes its winner the stored one
  /// when it beats it (measured beats estimated; then lower time). One
  /// transaction: readers see all of it or none.
  llvm::Error record(const TuningRun &run);

  std::optional<StoredWinner> winner(const std::string &signature,
                                     const std::string &target,
                                     const std::string &toolchain);

private:
  explicit TuningDB(sqlite3 *db) : db(db) {}
  llvm::Error exec(const char *sql);
  sqlite3 *db;
};

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TUNINGDB_TUNINGDB_H
