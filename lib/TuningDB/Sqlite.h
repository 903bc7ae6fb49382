//===- Sqlite.h - SQLite helpers of the tuning database ---------*- C++ -*-===//
//
// Private to lib/TuningDB: error values, a prepared statement that binds
// optional values and finalizes itself, and the winner upsert that both
// recording and merging run.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_TUNINGDB_SQLITE_H
#define VIBEGEMM_LIB_TUNINGDB_SQLITE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

#include <optional>
#include <string>

namespace mlir::vibegemm::sqlite {

inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

inline llvm::Error sqlError(sqlite3 *db, const std::string &what) {
  return makeError(what + ": " + sqlite3_errmsg(db));
}

inline bool isBusy(int rc) {
  return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/// A prepared statement finalized on scope exit.
struct Statement {
  sqlite3_stmt *stmt = nullptr;
  Statement() = default;
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;
  ~Statement() { sqlite3_finalize(stmt); }
  int prepare(sqlite3 *db, const char *sql) {
    return sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  }
  void bind(int i, const std::string &s) {
    sqlite3_bind_text(stmt, i, s.c_str(), -1, SQLITE_TRANSIENT);
  }
  /// Empty text binds NULL (a column that is not known).
  void bindOrNull(int i, const std::string &s) {
    if (s.empty())
      sqlite3_bind_null(stmt, i);
    else
      bind(i, s);
  }
  /// Binds the key of runs and winners to parameters 1 to 4, where every
  /// statement that selects or writes by key takes it.
  void bindKey(const std::string &signature, const std::string &target,
               const std::string &toolchain, const std::string &device) {
    bind(1, signature);
    bind(2, target);
    bind(3, toolchain);
    bind(4, device);
  }
  void bind(int i, std::optional<double> v) {
    v ? sqlite3_bind_double(stmt, i, *v) : sqlite3_bind_null(stmt, i);
  }
  void bind(int i, std::optional<int64_t> v) {
    v ? sqlite3_bind_int64(stmt, i, *v) : sqlite3_bind_null(stmt, i);
  }
  std::string text(int i) {
    const unsigned char *t = sqlite3_column_text(stmt, i);
    return t ? reinterpret_cast<const char *>(t) : "";
  }
  std::optional<double> real(int i) {
    if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
      return std::nullopt;
    return sqlite3_column_double(stmt, i);
  }
  std::optional<int64_t> integer(int i) {
    if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
      return std::nullopt;
    return sqlite3_column_int64(stmt, i);
  }
};

/// Runs a query that yields one integer; returns the SQLite result code.
inline int queryInt(sqlite3 *db, const char *sql, int64_t &out) {
  Statement s;
  if (int rc = s.prepare(db, sql); rc != SQLITE_OK)
    return rc;
  int rc = sqlite3_step(s.stmt);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_DONE ? SQLITE_ERROR : rc;
  out = sqlite3_column_int64(s.stmt, 0);
  return SQLITE_OK;
}

/// The upsert of a winner: kept unless the new one is better (see
/// `TuningDB::record`): measured beats estimated; a protocol beats none;
/// then, under the same protocol (or between estimates), the lower time.
/// Parameters: signature, target, toolchain, device, script, script_hash,
/// time_ms, measured, model, run_id, timing, created, updated.
inline constexpr const char *kUpsertWinner =
    "INSERT INTO winners(signature, target, toolchain, device, script, "
    "script_hash, time_ms, measured, model, run_id, timing, created, "
    "updated) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
    "coalesce(?12, datetime('now')),coalesce(?13, datetime('now'))) "
    "ON CONFLICT(signature, target, toolchain, device) DO UPDATE SET "
    "script=excluded.script, script_hash=excluded.script_hash, "
    "time_ms=excluded.time_ms, measured=excluded.measured, "
    "model=excluded.model, run_id=excluded.run_id, timing=excluded.timing, "
    "updated=excluded.updated "
    "WHERE excluded.measured > winners.measured OR "
    "(excluded.measured = winners.measured AND "
    "((excluded.timing IS winners.timing AND "
    "excluded.time_ms < winners.time_ms) OR "
    "(excluded.timing IS NOT NULL AND winners.timing IS NULL)))";

} // namespace mlir::vibegemm::sqlite

#endif // VIBEGEMM_LIB_TUNINGDB_SQLITE_H
