//===- TuningDBTestUtil.h - Tuning database test helpers --------*- C++ -*-===//
//
// Temporary directories, raw SQLite access beside TuningDB's own, and the
// runs and schemas the TuningDB, merge and spec-file tests build on.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_UNITTESTS_TUNINGDB_TUNINGDBTESTUTIL_H
#define VIBEGEMM_UNITTESTS_TUNINGDB_TUNINGDBTESTUTIL_H

#include "vibegemm/TuningDB/TuningDB.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sqlite3.h>

namespace mlir::vibegemm::dbtest {

/// A fresh directory, removed with its files at the end of the test.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> dir;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("vibegemm-db", dir));
    path = dir.str().str();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
  std::string path;
};

inline std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "<unreadable>";
}

inline void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec);
  os << text;
}

/// Runs SQL on `path` with a plain SQLite connection.
inline void rawExec(const std::string &path, const std::string &sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char *msg = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  EXPECT_EQ(rc, SQLITE_OK) << (msg ? msg : "") << " in " << sql;
  sqlite3_free(msg);
  sqlite3_close(db);
}

inline int64_t rawInt(const std::string &path, const std::string &sql) {
  sqlite3 *db = nullptr;
  sqlite3_stmt *stmt = nullptr;
  int64_t value = -1;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW)
    value = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

inline std::string script(llvm::StringRef name, llvm::StringRef body = "") {
  return ("transform.named_sequence @" + name +
          "(%arg0: !transform.any_op {transform.consumed}) {\n" + body +
          "  transform.yield \n}")
      .str();
}

/// A run of `signature` on sm_90 whose one candidate is the winner.
inline TuningRun makeRun(const std::string &signature,
                         std::optional<double> time, bool measured,
                         const std::string &scriptText,
                         const std::string &status = "ok") {
  TuningRun run;
  run.signature = signature;
  run.target = "sm_90";
  run.toolchain = "22.1.8";
  run.device = measured ? "NVIDIA H200" : "";
  run.model = "test-model";
  run.measured = measured;
  CandidateRow c;
  c.source = "builtin";
  c.status = status;
  c.script = scriptText;
  c.scriptHash = "h";
  (measured ? c.timeMs : c.estimatedMs) = time;
  run.candidates.push_back(c);
  return run;
}

inline std::unique_ptr<TuningDB> openOrDie(const std::string &path) {
  auto db = TuningDB::open(path);
  if (!db) {
    ADD_FAILURE() << llvm::toString(db.takeError());
    return nullptr;
  }
  return std::move(*db);
}

inline std::string errorOf(llvm::Expected<std::unique_ptr<TuningDB>> db) {
  if (db)
    return "";
  return llvm::toString(db.takeError());
}

/// The version 1 schema exactly as the first vibegemm release wrote it.
inline constexpr const char *kVersion1 = R"sql(
  CREATE TABLE runs(
    id INTEGER PRIMARY KEY, signature TEXT NOT NULL, target TEXT NOT NULL,
    toolchain TEXT NOT NULL, device TEXT, model TEXT, measured INTEGER,
    created TEXT DEFAULT (datetime('now')));
  CREATE TABLE candidates(
    run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,
    source TEXT, round INTEGER, status TEXT, diagnostic TEXT,
    script_hash TEXT, script TEXT, time_ms REAL, estimated_ms REAL,
    tflops REAL, registers INTEGER, spill_bytes INTEGER,
    shared_bytes INTEGER, PRIMARY KEY(run_id, idx));
  CREATE TABLE winners(
    signature TEXT NOT NULL, target TEXT NOT NULL, toolchain TEXT NOT NULL,
    script TEXT NOT NULL, script_hash TEXT, time_ms REAL, measured INTEGER,
    device TEXT, model TEXT, run_id INTEGER REFERENCES runs(id),
    updated TEXT DEFAULT (datetime('now')),
    PRIMARY KEY(signature, target, toolchain));
  PRAGMA application_id = 1986487661;
  PRAGMA user_version = 1;
  INSERT INTO runs(signature, target, toolchain, device, model, measured)
    VALUES('sig', 'sm_90', '22.1.8', '', '', 0);
  INSERT INTO candidates(run_id, idx, source, status, script, estimated_ms)
    VALUES(1, 0, 'builtin', 'ok', 'old script', 2.5);
  INSERT INTO winners(signature, target, toolchain, script, time_ms,
    measured, run_id, updated)
    VALUES('sig', 'sm_90', '22.1.8', 'old script', 2.5, 0, 1,
           '2025-01-02 03:04:05');)sql";

} // namespace mlir::vibegemm::dbtest

#endif // VIBEGEMM_UNITTESTS_TUNINGDB_TUNINGDBTESTUTIL_H
