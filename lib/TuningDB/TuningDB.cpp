//===- TuningDB.cpp - Winners and candidate history in SQLite -------------===//
//
// WAL mode with a busy timeout, and write transactions retried while another
// writer holds the file, so several tuners can share one database; the
// application_id marks our files so a foreign one is never touched; the
// schema is created and upgraded by numbered migrations.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TuningDB/TuningDB.h"

#include "Sqlite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::sqlite;

namespace {
/// How long a statement waits for another connection's lock, and how long a
/// write transaction is retried when SQLite still answers busy.
constexpr int kBusyTimeoutMs = 10000;

/// Migration i takes a file from schema version i to i + 1. A new file runs
/// them all, so migration 0 is the whole of version 1. Each runs inside the
/// opening transaction; append, never edit.
constexpr const char *kMigrations[] = {
    // 0 -> 1: runs, their candidates, and the winner per key.
    R"sql(
      CREATE TABLE IF NOT EXISTS runs(
        id INTEGER PRIMARY KEY, signature TEXT NOT NULL, target TEXT NOT NULL,
        toolchain TEXT NOT NULL, device TEXT, model TEXT, measured INTEGER,
        created TEXT DEFAULT (datetime('now')));
      CREATE TABLE IF NOT EXISTS candidates(
        run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,
        source TEXT, round INTEGER, status TEXT, diagnostic TEXT,
        script_hash TEXT, script TEXT, time_ms REAL, estimated_ms REAL,
        tflops REAL, registers INTEGER, spill_bytes INTEGER,
        shared_bytes INTEGER, PRIMARY KEY(run_id, idx));
      CREATE TABLE IF NOT EXISTS winners(
        signature TEXT NOT NULL, target TEXT NOT NULL, toolchain TEXT NOT NULL,
        script TEXT NOT NULL, script_hash TEXT, time_ms REAL, measured INTEGER,
        device TEXT, model TEXT, run_id INTEGER REFERENCES runs(id),
        updated TEXT DEFAULT (datetime('now')),
        PRIMARY KEY(signature, target, toolchain));)sql",
    // 1 -> 2: indexes for listing, pruning and exporting by key, and the
    // date a winner was first stored (SQLite cannot add a column whose
    // default is datetime('now'): writers set it).
    R"sql(
      CREATE INDEX IF NOT EXISTS runs_by_key
        ON runs(signature, target, toolchain);
      CREATE INDEX IF NOT EXISTS winners_by_target
        ON winners(target, toolchain);
      ALTER TABLE winners ADD COLUMN created TEXT;
      UPDATE winners SET created = updated;)sql",
    // 2 -> 3: the timing protocol of measured times (NULL: before it).
    R"sql(
      ALTER TABLE runs ADD COLUMN timing TEXT;
      ALTER TABLE winners ADD COLUMN timing TEXT;)sql",
    // 3 -> 4: a winner per device, and a stable unique id per run so that
    // merging another database (`TuningDB::merge`) skips runs it already
    // has; which of the run's GPUs measured each candidate. SQLite cannot
    // change a primary key: the table is rebuilt.
    R"sql(
      ALTER TABLE runs ADD COLUMN uid TEXT;
      ALTER TABLE candidates ADD COLUMN device_ordinal INTEGER;
      UPDATE runs SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
      CREATE UNIQUE INDEX IF NOT EXISTS runs_by_uid ON runs(uid);
      CREATE TABLE winners_v4(
        signature TEXT NOT NULL, target TEXT NOT NULL, toolchain TEXT NOT NULL,
        device TEXT NOT NULL DEFAULT '', script TEXT NOT NULL,
        script_hash TEXT, time_ms REAL, measured INTEGER, model TEXT,
        run_id INTEGER REFERENCES runs(id),
        updated TEXT DEFAULT (datetime('now')), created TEXT, timing TEXT,
        PRIMARY KEY(signature, target, toolchain, device));
      INSERT INTO winners_v4(signature, target, toolchain, device, script,
        script_hash, time_ms, measured, model, run_id, updated, created,
        timing)
        SELECT signature, target, toolchain, coalesce(device, ''), script,
          script_hash, time_ms, measured, model, run_id, updated, created,
          timing FROM winners;
      DROP TABLE winners;
      ALTER TABLE winners_v4 RENAME TO winners;
      CREATE INDEX IF NOT EXISTS winners_by_target
        ON winners(target, toolchain);)sql",
    // 4 -> 5: a hash of what the GPU ran (the PTX and the launch plan), so
    // a kernel measured before is not measured again (`pastMeasurement`).
    R"sql(
      ALTER TABLE candidates ADD COLUMN kernel_hash TEXT;
      CREATE INDEX IF NOT EXISTS candidates_by_kernel
        ON candidates(kernel_hash);)sql",
};
static_assert(std::size(kMigrations) == TuningDB::kSchemaVersion,
              "one migration per schema version");

/// Why `path` cannot be used, from the result code of a read of its header
/// or schema.
llvm::Error unreadable(sqlite3 *db, int rc, const std::string &path) {
  switch (rc & 0xff) {
  case SQLITE_NOTADB:
    return makeError(path + " is not an SQLite database; refusing to use or "
                            "overwrite it");
  case SQLITE_CORRUPT:
    return makeError(path + " is a damaged SQLite database (" +
                     sqlite3_errmsg(db) + "); refusing to use or overwrite it");
  default:
    return makeError("cannot read tuning database " + path + ": " +
                     sqlite3_errmsg(db));
  }
}

/// Checks that `path` is empty or ours; sets `tables` to the number of
/// schema objects and `version` to its user_version.
llvm::Error checkIdentity(sqlite3 *db, const std::string &path, int64_t &tables,
                          int64_t &version) {
  int64_t appId = 0;
  if (int rc = queryInt(db, "PRAGMA application_id", appId); rc != SQLITE_OK)
    return unreadable(db, rc, path);
  if (int rc = queryInt(db, "SELECT count(*) FROM sqlite_master", tables);
      rc != SQLITE_OK)
    return unreadable(db, rc, path);
  if (int rc = queryInt(db, "PRAGMA user_version", version); rc != SQLITE_OK)
    return unreadable(db, rc, path);
  if (tables > 0 && appId != TuningDB::kApplicationId)
    return makeError(path + " is an SQLite database of another program (no "
                            "vibegemm application_id); refusing to use or "
                            "overwrite it");
  if (version > TuningDB::kSchemaVersion)
    return makeError(
        path + " was written by a newer vibegemm (schema version " +
        std::to_string(version) + "; this one knows up to " +
        std::to_string(TuningDB::kSchemaVersion) + "); refusing to use it");
  return llvm::Error::success();
}

/// `PRAGMA quick_check`: the b-trees and records are well formed (it skips
/// only the index-versus-table comparison of integrity_check).
llvm::Error checkIntact(sqlite3 *db, const std::string &path) {
  Statement s;
  if (int rc = s.prepare(db, "PRAGMA quick_check(5)"); rc != SQLITE_OK)
    return unreadable(db, rc, path);
  std::string problems;
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
    std::string line = s.text(0);
    if (line == "ok")
      continue;
    // One row may hold several lines; the refusal stays one line.
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(line).split(parts, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts)
      if (!part.trim().starts_with("*** in database"))
        problems += (problems.empty() ? "" : "; ") + part.trim().str();
  }
  if (rc != SQLITE_DONE)
    return unreadable(db, rc, path);
  if (!problems.empty())
    return makeError(path + " is a damaged SQLite database (quick_check: " +
                     problems + "); refusing to use or overwrite it");
  return llvm::Error::success();
}

/// The order in which `TuningDB::winner` prefers one device's winner of a
/// key over another's (see its comment).
constexpr const char *kWinnerPreference =
    "measured DESC, (timing IS NOT NULL) DESC, (time_ms IS NULL), time_ms, "
    "device";

/// Reads the columns that `winner` and `listWinners` both select, from
/// column `first` on, in this order: script, script_hash, time_ms,
/// measured, device, model, timing. `Winner` is StoredWinner or WinnerInfo.
template <typename Winner>
void readWinnerColumns(Statement &s, int first, Winner &w) {
  w.script = s.text(first);
  w.scriptHash = s.text(first + 1);
  w.timeMs = s.real(first + 2);
  w.measured = sqlite3_column_int(s.stmt, first + 3) != 0;
  w.device = s.text(first + 4);
  w.model = s.text(first + 5);
  w.timing = s.text(first + 6);
}

/// Steps `s` through all its rows, each read by `readRow`; a failed step
/// fails with `what` and SQLite's message.
template <typename Row>
llvm::Expected<std::vector<Row>> readRows(sqlite3 *db, Statement &s,
                                          const char *what,
                                          llvm::function_ref<Row()> readRow) {
  std::vector<Row> rows;
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW)
    rows.push_back(readRow());
  if (rc != SQLITE_DONE)
    return sqlError(db, what);
  return rows;
}

} // namespace

llvm::Expected<std::unique_ptr<TuningDB>>
TuningDB::open(const std::string &path, OpenOptions options) {
  if (llvm::sys::fs::is_directory(path))
    return makeError(path + " is a directory, not a tuning database");
  if (!options.create && !llvm::sys::fs::exists(path))
    return makeError("no tuning database at " + path);
  sqlite3 *raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::unique_ptr<TuningDB> db(new TuningDB(raw));
  if (rc != SQLITE_OK)
    return sqlError(raw, "cannot open tuning database " + path);
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);

  // Nothing is written before the file is known to be empty or ours, and
  // intact. One read transaction, so the checks see one state of a file
  // that another process may be creating.
  int64_t tables = 0, version = 0;
  if (sqlite3_exec(raw, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK)
    return sqlError(raw, "cannot read tuning database " + path);
  llvm::Error checked = checkIdentity(raw, path, tables, version);
  if (!checked && tables > 0)
    checked = checkIntact(raw, path);
  sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr);
  if (checked)
    return std::move(checked);

  // Every connection asks for WAL; only the first change sticks in the file.
  // Where WAL is impossible (no shared memory, e.g. some network file
  // systems) SQLite keeps its rollback journal, which is still safe with
  // several writers, only slower.
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    Statement s;
    rc = s.prepare(raw, "PRAGMA journal_mode=WAL");
    if (rc == SQLITE_OK)
      rc = sqlite3_step(s.stmt);
    if (rc == SQLITE_ROW)
      break;
    if (!isBusy(rc) || std::chrono::steady_clock::now() > deadline)
      return sqlError(raw, "cannot set the journal mode of " + path);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  if (version < kSchemaVersion) {
    // Another process may be creating or migrating the same file: decide
    // again under the write lock, then run the missing migrations.
    std::string failure;
    llvm::Error e = db->writeTransaction("cannot migrate " + path, [&]() {
      int64_t nowTables = 0, nowVersion = 0;
      if (llvm::Error e = checkIdentity(raw, path, nowTables, nowVersion)) {
        failure = llvm::toString(std::move(e));
        return SQLITE_ABORT;
      }
      for (int64_t v = nowVersion; v < kSchemaVersion; ++v)
        if (int rc =
                sqlite3_exec(raw, kMigrations[v], nullptr, nullptr, nullptr);
            rc != SQLITE_OK)
          return rc;
      std::string stamp =
          "PRAGMA application_id = " + std::to_string(kApplicationId) +
          "; PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";";
      return sqlite3_exec(raw, stamp.c_str(), nullptr, nullptr, nullptr);
    });
    if (!failure.empty()) {
      llvm::consumeError(std::move(e));
      return makeError(failure);
    }
    if (e)
      return std::move(e);
  }
  return std::move(db);
}

TuningDB::~TuningDB() { sqlite3_close(db); }

std::string mlir::vibegemm::hashText(llvm::StringRef text) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  return s;
}

llvm::Error TuningDB::writeTransaction(const std::string &what,
                                       llvm::function_ref<int()> body) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 1;; ++attempt) {
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) {
      rc = body();
      if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK)
        return llvm::Error::success();
    }
    std::string message = sqlite3_errmsg(db);
    if (!sqlite3_get_autocommit(db))
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    if (!isBusy(rc) || std::chrono::steady_clock::now() > deadline)
      return makeError(what + ": " + message);
    // The busy handler already waited inside SQLite; this covers the busy
    // answers it does not wait for (a lock upgrade, WAL recovery).
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::min(5 * attempt, 100)));
  }
}

int TuningDB::recordRun(const TuningRun &run, bool *becameWinner) {
  *becameWinner = false;
  // Estimates have no timing protocol, whatever the caller set.
  std::string timing = run.measured ? run.timing : "";
  // The same run recorded again, with more candidates: replace them.
  if (!run.uid.empty()) {
    Statement find;
    if (int rc = find.prepare(db, "SELECT id FROM runs WHERE uid = ?");
        rc != SQLITE_OK)
      return rc;
    find.bind(1, run.uid);
    if (sqlite3_step(find.stmt) == SQLITE_ROW) {
      int64_t runId = sqlite3_column_int64(find.stmt, 0);
      Statement update, clear;
      if (int rc = update.prepare(db, "UPDATE runs SET model = ?, measured = "
                                      "?, timing = ? WHERE id = ?");
          rc != SQLITE_OK)
        return rc;
      update.bind(1, run.model);
      update.bind(2, std::optional<int64_t>(run.measured));
      update.bindOrNull(3, timing);
      update.bind(4, std::optional<int64_t>(runId));
      if (int rc = sqlite3_step(update.stmt); rc != SQLITE_DONE)
        return rc;
      if (int rc = clear.prepare(db, "DELETE FROM candidates WHERE run_id = ?");
          rc != SQLITE_OK)
        return rc;
      clear.bind(1, std::optional<int64_t>(runId));
      if (int rc = sqlite3_step(clear.stmt); rc != SQLITE_DONE)
        return rc;
      return recordCandidates(run, runId, timing, becameWinner);
    }
  }
  Statement insertRun;
  if (int rc = insertRun.prepare(
          db, "INSERT INTO runs(signature, target, toolchain, device, model, "
              "measured, timing, uid) VALUES(?,?,?,?,?,?,?,"
              "coalesce(?8, lower(hex(randomblob(16)))))");
      rc != SQLITE_OK)
    return rc;
  insertRun.bindKey(run.signature, run.target, run.toolchain, run.device);
  insertRun.bind(5, run.model);
  insertRun.bind(6, std::optional<int64_t>(run.measured));
  insertRun.bindOrNull(7, timing);
  insertRun.bindOrNull(8, run.uid);
  if (int rc = sqlite3_step(insertRun.stmt); rc != SQLITE_DONE)
    return rc;
  return recordCandidates(run, sqlite3_last_insert_rowid(db), timing,
                          becameWinner);
}

int TuningDB::recordCandidates(const TuningRun &run, int64_t runId,
                               const std::string &timing, bool *becameWinner) {
  Statement s;
  if (int rc = s.prepare(
          db, "INSERT INTO candidates(run_id, idx, source, round, status, "
              "diagnostic, script_hash, script, time_ms, estimated_ms, "
              "tflops, registers, spill_bytes, shared_bytes, "
              "device_ordinal, kernel_hash) "
              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      rc != SQLITE_OK)
    return rc;
  for (const CandidateRow &c : run.candidates) {
    sqlite3_reset(s.stmt);
    s.bind(1, std::optional<int64_t>(runId));
    s.bind(2, std::optional<int64_t>(c.index));
    s.bind(3, c.source);
    s.bind(4, std::optional<int64_t>(c.round));
    s.bind(5, c.status);
    s.bind(6, c.diagnostic);
    s.bind(7, c.scriptHash);
    s.bind(8, c.script);
    s.bind(9, c.timeMs);
    s.bind(10, c.estimatedMs);
    s.bind(11, c.tflops);
    s.bind(12, c.registers);
    s.bind(13, c.spillBytes);
    s.bind(14, c.sharedBytes);
    s.bind(15, c.deviceOrdinal);
    s.bindOrNull(16, c.kernelHash);
    if (int rc = sqlite3_step(s.stmt); rc != SQLITE_DONE)
      return rc;
  }
  const CandidateRow &win = run.candidates[run.winner];
  if (win.status != "ok")
    return SQLITE_OK;
  // Keep the stored winner of this device unless this one is better.
  std::optional<double> time = run.measured ? win.timeMs : win.estimatedMs;
  Statement w;
  if (int rc = w.prepare(db, kUpsertWinner); rc != SQLITE_OK)
    return rc;
  w.bindKey(run.signature, run.target, run.toolchain, run.device);
  w.bind(5, win.script);
  w.bind(6, win.scriptHash);
  w.bind(7, time);
  w.bind(8, std::optional<int64_t>(run.measured));
  w.bind(9, run.model);
  w.bind(10, std::optional<int64_t>(runId));
  w.bindOrNull(11, timing);
  if (int rc = sqlite3_step(w.stmt); rc != SQLITE_DONE)
    return rc;
  *becameWinner = sqlite3_changes(db) > 0;
  return SQLITE_OK;
}

llvm::Error TuningDB::record(const TuningRun &run) {
  if (run.winner >= run.candidates.size())
    return makeError("tuning database: run of " + run.signature +
                     " names winner " + std::to_string(run.winner) + " of " +
                     std::to_string(run.candidates.size()) + " candidates");
  bool becameWinner;
  return writeTransaction("tuning database: cannot record a run of " +
                              run.signature,
                          [&] { return recordRun(run, &becameWinner); });
}

std::optional<StoredWinner> TuningDB::winner(const std::string &signature,
                                             const std::string &target,
                                             const std::string &toolchain,
                                             const std::string &device) {
  Statement s;
  std::string sql = std::string("SELECT script, script_hash, time_ms, "
                                "measured, device, model, timing FROM "
                                "winners WHERE signature=?1 AND target=?2 "
                                "AND toolchain=?3 ORDER BY (?4 != '' AND "
                                "device = ?4) DESC, ") +
                    kWinnerPreference + " LIMIT 1";
  if (s.prepare(db, sql.c_str()) != SQLITE_OK)
    return std::nullopt;
  s.bindKey(signature, target, toolchain, device);
  if (sqlite3_step(s.stmt) != SQLITE_ROW)
    return std::nullopt;
  StoredWinner w;
  readWinnerColumns(s, 0, w);
  return w;
}

std::optional<TuningDB::PastResult>
TuningDB::pastResult(const std::string &signature, const std::string &target,
                     const std::string &toolchain, const std::string &device,
                     const std::string &scriptHash,
                     llvm::ArrayRef<llvm::StringRef> statuses) {
  if (statuses.empty())
    return std::nullopt;
  std::string sql =
      "SELECT c.status, c.diagnostic, r.id, c.time_ms FROM candidates c "
      "JOIN runs r ON "
      "c.run_id = r.id WHERE r.signature=? AND r.target=? AND "
      "r.toolchain=? AND r.device=? AND r.measured=1 AND c.script_hash=? "
      "AND c.status IN (?";
  for (size_t i = 1; i < statuses.size(); ++i)
    sql += ",?";
  sql += ") ORDER BY r.id DESC LIMIT 1";
  Statement s;
  if (s.prepare(db, sql.c_str()) != SQLITE_OK)
    return std::nullopt;
  s.bindKey(signature, target, toolchain, device);
  s.bind(5, scriptHash);
  int column = 6;
  for (llvm::StringRef status : statuses)
    s.bind(column++, status.str());
  if (sqlite3_step(s.stmt) != SQLITE_ROW)
    return std::nullopt;
  PastResult past{s.text(0), s.text(1), std::nullopt,
                  sqlite3_column_int64(s.stmt, 2)};
  if (sqlite3_column_type(s.stmt, 3) != SQLITE_NULL)
    past.timeMs = sqlite3_column_double(s.stmt, 3);
  return past;
}

std::optional<TuningDB::PastResult>
TuningDB::pastMeasurement(const std::string &signature,
                          const std::string &target, const std::string &device,
                          const std::string &timing,
                          const std::string &kernelHash) {
  if (kernelHash.empty() || device.empty() || timing.empty())
    return std::nullopt;
  Statement s;
  if (s.prepare(
          db, "SELECT c.status, c.diagnostic, r.id, c.time_ms, "
              "c.tflops FROM candidates c JOIN runs r ON c.run_id = r.id WHERE "
              "r.signature=? AND r.target=? AND r.device=? AND "
              "r.timing=? AND r.measured=1 AND c.kernel_hash=? AND "
              "c.status='ok' AND c.time_ms IS NOT NULL "
              "ORDER BY r.id DESC LIMIT 1") != SQLITE_OK)
    return std::nullopt;
  s.bind(1, signature);
  s.bind(2, target);
  s.bind(3, device);
  s.bind(4, timing);
  s.bind(5, kernelHash);
  if (sqlite3_step(s.stmt) != SQLITE_ROW)
    return std::nullopt;
  return PastResult{s.text(0), s.text(1), s.real(3),
                    sqlite3_column_int64(s.stmt, 2), s.real(4)};
}

llvm::Expected<std::vector<WinnerInfo>>
TuningDB::listWinners(const WinnerFilter &filter) {
  Statement s;
  // `preference` ranks a key's winners as `winner` does without a device.
  std::string sql =
      std::string(
          "SELECT w.signature, w.target, w.toolchain, w.script, "
          "w.script_hash, w.time_ms, w.measured, w.device, w.model, "
          "w.timing, w.run_id, w.created, w.updated, "
          "(SELECT count(*) FROM runs r WHERE r.signature = w.signature AND "
          "r.target = w.target AND r.toolchain = w.toolchain), "
          "(SELECT count(*) FROM runs r JOIN candidates c ON c.run_id = r.id "
          "WHERE r.signature = w.signature AND r.target = w.target AND "
          "r.toolchain = w.toolchain) "
          "FROM (SELECT *, row_number() OVER (PARTITION BY signature, "
          "target, toolchain ORDER BY ") +
      kWinnerPreference +
      ") AS preference FROM winners) w "
      "WHERE (?1 = '' OR w.signature = ?1) AND "
      "(?2 = '' OR w.target = ?2) AND (?3 = '' OR w.toolchain = ?3) AND "
      "(?4 = 0 OR w.preference = 1) "
      "ORDER BY w.signature, w.target, w.toolchain, w.device";
  const char *what = "tuning database: cannot list winners";
  if (s.prepare(db, sql.c_str()) != SQLITE_OK)
    return sqlError(db, what);
  s.bind(1, filter.signature);
  s.bind(2, filter.target);
  s.bind(3, filter.toolchain);
  s.bind(4, std::optional<int64_t>(filter.bestPerKey));
  return readRows<WinnerInfo>(db, s, what, [&] {
    WinnerInfo w;
    w.signature = s.text(0);
    w.target = s.text(1);
    w.toolchain = s.text(2);
    readWinnerColumns(s, 3, w);
    w.runId = s.integer(10);
    w.created = s.text(11);
    w.updated = s.text(12);
    w.runs = sqlite3_column_int64(s.stmt, 13);
    w.candidates = sqlite3_column_int64(s.stmt, 14);
    return w;
  });
}

llvm::Expected<std::vector<CandidateRow>>
TuningDB::runCandidates(int64_t runId) {
  Statement s;
  const char *what = "tuning database: cannot read candidates";
  if (s.prepare(db, "SELECT idx, round, source, status, diagnostic, "
                    "script_hash, script, time_ms, estimated_ms, tflops, "
                    "registers, spill_bytes, shared_bytes, device_ordinal, "
                    "kernel_hash FROM candidates "
                    "WHERE run_id = ? ORDER BY idx") != SQLITE_OK)
    return sqlError(db, what);
  s.bind(1, std::optional<int64_t>(runId));
  return readRows<CandidateRow>(db, s, what, [&] {
    CandidateRow c;
    c.index = sqlite3_column_int64(s.stmt, 0);
    c.round = sqlite3_column_int64(s.stmt, 1);
    c.source = s.text(2);
    c.status = s.text(3);
    c.diagnostic = s.text(4);
    c.scriptHash = s.text(5);
    c.script = s.text(6);
    c.timeMs = s.real(7);
    c.estimatedMs = s.real(8);
    c.tflops = s.real(9);
    c.registers = s.integer(10);
    c.spillBytes = s.integer(11);
    c.sharedBytes = s.integer(12);
    c.deviceOrdinal = s.integer(13);
    c.kernelHash = s.text(14);
    return c;
  });
}

int TuningDB::schemaVersion() {
  int64_t version = -1;
  queryInt(db, "PRAGMA user_version", version);
  return static_cast<int>(version);
}
