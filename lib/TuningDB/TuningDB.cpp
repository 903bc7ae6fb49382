//===- TuningDB.cpp - Winners and candidate history in SQLite -------------===//
//
// WAL mode with a busy timeout, so several tuners can write one database;
// the application_id marks our files so a foreign one is never touched.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TuningDB/TuningDB.h"

#include <sqlite3.h>

using namespace mlir::vibegemm;

namespace {
constexpr int kApplicationId = 0x7667656d; // "vgem"
constexpr int kSchemaVersion = 1;

llvm::Error sqlError(sqlite3 *db, const std::string &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 what + ": " + sqlite3_errmsg(db));
}

/// A prepared statement finalized on scope exit.
struct Statement {
  sqlite3_stmt *stmt = nullptr;
  ~Statement() { sqlite3_finalize(stmt); }
  void bind(int i, const std::string &s) {
    sqlite3_bind_text(stmt, i, s.c_str(), -1, SQLITE_TRANSIENT);
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
};

int queryInt(sqlite3 *db, const char *sql) {
  Statement s;
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_step(s.stmt) != SQLITE_ROW)
    return -1;
  return sqlite3_column_int(s.stmt, 0);
}
} // namespace

llvm::Expected<std::unique_ptr<TuningDB>>
TuningDB::open(const std::string &path) {
  sqlite3 *raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<TuningDB> db(new TuningDB(raw));
  if (rc != SQLITE_OK)
    return sqlError(raw, "cannot open tuning database " + path);
  sqlite3_busy_timeout(raw, 10000);
  // Reading the header fails on a file that is not SQLite at all.
  int appId = queryInt(raw, "PRAGMA application_id");
  int tables = queryInt(raw, "SELECT count(*) FROM sqlite_master");
  if (appId < 0 || tables < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + " is not an SQLite database; refusing to use or overwrite it");
  if (tables > 0 && appId != kApplicationId)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + " is an SQLite database of another program (no vibegemm "
               "application_id); refusing to use or overwrite it");
  if (tables > 0 && queryInt(raw, "PRAGMA user_version") > kSchemaVersion)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + " was written by a newer vibegemm (schema version " +
            std::to_string(queryInt(raw, "PRAGMA user_version")) + ")");
  if (llvm::Error e = db->exec("PRAGMA journal_mode=WAL"))
    return std::move(e);
  if (tables == 0) {
    const char *schema = R"sql(
      BEGIN IMMEDIATE;
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
        PRIMARY KEY(signature, target, toolchain));
      PRAGMA application_id = 1986487661;
      PRAGMA user_version = 1;
      COMMIT;)sql";
    if (llvm::Error e = db->exec(schema))
      return std::move(e);
  }
  return std::move(db);
}

TuningDB::~TuningDB() { sqlite3_close(db); }

llvm::Error TuningDB::exec(const char *sql) {
  char *msg = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : "unknown error";
    sqlite3_free(msg);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "tuning database: " + text);
  }
  return llvm::Error::success();
}

llvm::Error TuningDB::record(const TuningRun &run) {
  if (llvm::Error e = exec("BEGIN IMMEDIATE"))
    return e;
  auto fail = [&](const std::string &what) {
    llvm::Error e = sqlError(db, "tuning database: " + what);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  };
  Statement insertRun;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO runs(signature, target, toolchain, "
                         "device, model, measured) VALUES(?,?,?,?,?,?)",
                         -1, &insertRun.stmt, nullptr) != SQLITE_OK)
    return fail("insert run");
  insertRun.bind(1, run.signature);
  insertRun.bind(2, run.target);
  insertRun.bind(3, run.toolchain);
  insertRun.bind(4, run.device);
  insertRun.bind(5, run.model);
  insertRun.bind(6, std::optional<int64_t>(run.measured));
  if (sqlite3_step(insertRun.stmt) != SQLITE_DONE)
    return fail("insert run");
  int64_t runId = sqlite3_last_insert_rowid(db);
  for (const CandidateRow &c : run.candidates) {
    Statement s;
    if (sqlite3_prepare_v2(
            db,
            "INSERT INTO candidates(run_id, idx, source, round, status, "
            "diagnostic, script_hash, script, time_ms, estimated_ms, tflops, "
            "registers, spill_bytes, shared_bytes) "
            "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            -1, &s.stmt, nullptr) != SQLITE_OK)
      return fail("insert candidate");
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
    if (sqlite3_step(s.stmt) != SQLITE_DONE)
      return fail("insert candidate");
  }
  const CandidateRow &win = run.candidates.at(run.winner);
  if (win.status == "ok") {
    // Keep the stored winner unless this one is better: measured beats
    // estimated, then the lower time wins.
    std::optional<double> time = run.measured ? win.timeMs : win.estimatedMs;
    Statement s;
    if (sqlite3_prepare_v2(
            db,
            "INSERT INTO winners(signature, target, toolchain, script, "
            "script_hash, time_ms, measured, device, model, run_id) "
            "VALUES(?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(signature, target, toolchain) DO UPDATE SET "
            "script=excluded.script, script_hash=excluded.script_hash, "
            "time_ms=excluded.time_ms, measured=excluded.measured, "
            "device=excluded.device, model=excluded.model, "
            "run_id=excluded.run_id, updated=datetime('now') "
            "WHERE excluded.measured > winners.measured OR "
            "(excluded.measured = winners.measured AND "
            "excluded.time_ms < winners.time_ms)",
            -1, &s.stmt, nullptr) != SQLITE_OK)
      return fail("update winner");
    s.bind(1, run.signature);
    s.bind(2, run.target);
    s.bind(3, run.toolchain);
    s.bind(4, win.script);
    s.bind(5, win.scriptHash);
    s.bind(6, time);
    s.bind(7, std::optional<int64_t>(run.measured));
    s.bind(8, run.device);
    s.bind(9, run.model);
    s.bind(10, std::optional<int64_t>(runId));
    if (sqlite3_step(s.stmt) != SQLITE_DONE)
      return fail("update winner");
  }
  return exec("COMMIT");
}

std::optional<StoredWinner> TuningDB::winner(const std::string &signature,
                                             const std::string &target,
                                             const std::string &toolchain) {
  Statement s;
  if (sqlite3_prepare_v2(db,
                         "SELECT script, script_hash, time_ms, measured, "
                         "device, model FROM winners WHERE signature=? AND "
                         "target=? AND toolchain=?",
                         -1, &s.stmt, nullptr) != SQLITE_OK)
    return std::nullopt;
  s.bind(1, signature);
  s.bind(2, target);
  s.bind(3, toolchain);
  if (sqlite3_step(s.stmt) != SQLITE_ROW)
    return std::nullopt;
  StoredWinner w;
  w.script = s.text(0);
  w.scriptHash = s.text(1);
  if (sqlite3_column_type(s.stmt, 2) != SQLITE_NULL)
    w.timeMs = sqlite3_column_double(s.stmt, 2);
  w.measured = sqlite3_column_int(s.stmt, 3) != 0;
  w.device = s.text(4);
  w.model = s.text(5);
  return w;
}
