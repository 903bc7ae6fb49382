//===- TuningDBMaintenance.cpp - Pruning, imports and merges --------------===//
//
// What changes a tuning database other than a tuner's record: deleting old
// runs, storing a winner from a spec file, and merging another database in
// one transaction.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TuningDB/TuningDB.h"

#include "Sqlite.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::sqlite;

llvm::Expected<PruneStats> TuningDB::prune(const PrunePolicy &policy) {
  if (!policy.olderThanDays && !policy.keepRuns)
    return makeError("tuning database: prune needs an age or a run count");
  if ((policy.olderThanDays && *policy.olderThanDays < 0) ||
      (policy.keepRuns && *policy.keepRuns < 0))
    return makeError("tuning database: prune limits must not be negative");
  // The runs to delete: those every given condition selects, except any a
  // winner points to.
  constexpr const char *kDoomed =
      "SELECT id FROM (SELECT id, created, row_number() OVER (PARTITION BY "
      "signature, target, toolchain ORDER BY id DESC) AS newest FROM runs) "
      "WHERE (?1 IS NULL OR created < datetime('now', '-' || ?1 || ' days')) "
      "AND (?2 IS NULL OR newest > ?2) "
      "AND id NOT IN (SELECT run_id FROM winners WHERE run_id IS NOT NULL)";
  std::string deleteCandidates =
      std::string("DELETE FROM candidates WHERE run_id IN (") + kDoomed + ")";
  std::string deleteRuns =
      std::string("DELETE FROM runs WHERE id IN (") + kDoomed + ")";
  PruneStats stats;
  auto run = [&](const std::string &sql, int64_t &count) {
    Statement s;
    if (int rc = s.prepare(db, sql.c_str()); rc != SQLITE_OK)
      return rc;
    s.bind(1, policy.olderThanDays);
    s.bind(2, policy.keepRuns);
    if (int rc = sqlite3_step(s.stmt); rc != SQLITE_DONE)
      return rc;
    count = sqlite3_changes(db);
    return SQLITE_OK;
  };
  if (llvm::Error e = writeTransaction("tuning database: cannot prune", [&]() {
        stats = PruneStats();
        if (int rc = run(deleteCandidates, stats.candidates); rc != SQLITE_OK)
          return rc;
        return run(deleteRuns, stats.runs);
      }))
    return std::move(e);
  return stats;
}

llvm::Expected<bool> TuningDB::importWinner(const WinnerInfo &w) {
  TuningRun run;
  run.signature = w.signature;
  run.target = w.target;
  run.toolchain = w.toolchain;
  run.device = w.device;
  run.model = w.model;
  run.measured = w.measured;
  run.timing = w.timing;
  CandidateRow c;
  c.source = "import";
  c.status = "ok";
  c.script = w.script;
  c.scriptHash = w.scriptHash.empty() ? hashText(w.script) : w.scriptHash;
  (w.measured ? c.timeMs : c.estimatedMs) = w.timeMs;
  run.candidates.push_back(std::move(c));
  bool becameWinner = false;
  if (llvm::Error e = writeTransaction(
          "tuning database: cannot import the schedule of " + w.signature,
          [&] { return recordRun(run, &becameWinner); }))
    return std::move(e);
  return becameWinner;
}

llvm::Expected<MergeStats> TuningDB::merge(const std::string &otherPath) {
  // The other file passes the checks of `open` (and is migrated, so its
  // runs have uids that stay the same when it is merged again) before this
  // one is touched.
  {
    TuningDB::OpenOptions options;
    options.create = false;
    llvm::Expected<std::unique_ptr<TuningDB>> other = open(otherPath, options);
    if (!other)
      return other.takeError();
  }
  const char *self = sqlite3_db_filename(db, "main");
  if (self && *self && llvm::sys::fs::equivalent(self, otherPath))
    return makeError("cannot merge " + otherPath + " into itself");

  Statement attach;
  if (attach.prepare(db, "ATTACH DATABASE ? AS other") != SQLITE_OK)
    return sqlError(db, "cannot read " + otherPath);
  attach.bind(1, otherPath);
  if (sqlite3_step(attach.stmt) != SQLITE_DONE)
    return sqlError(db, "cannot read " + otherPath);
  auto detach = llvm::make_scope_exit(
      [&] { sqlite3_exec(db, "DETACH other", nullptr, nullptr, nullptr); });

  MergeStats stats;
  llvm::Error e = writeTransaction("cannot merge " + otherPath, [&]() {
    stats = MergeStats();
    // Runs oldest first, so their new ids keep their order.
    Statement runs, insertRun, copyCandidates;
    if (int rc = runs.prepare(
            db, "SELECT o.id, o.uid, EXISTS(SELECT 1 FROM main.runs m "
                "WHERE m.uid = o.uid) FROM other.runs o ORDER BY o.id");
        rc != SQLITE_OK)
      return rc;
    if (int rc = insertRun.prepare(
            db, "INSERT INTO main.runs(signature, target, toolchain, device, "
                "model, measured, created, timing, uid) SELECT signature, "
                "target, toolchain, device, model, measured, created, timing, "
                "uid FROM other.runs WHERE id = ?");
        rc != SQLITE_OK)
      return rc;
    if (int rc = copyCandidates.prepare(
            db, "INSERT INTO main.candidates(run_id, idx, source, round, "
                "status, diagnostic, script_hash, script, time_ms, "
                "estimated_ms, tflops, registers, spill_bytes, shared_bytes, "
                "device_ordinal, kernel_hash) SELECT ?1, idx, source, round, "
                "status, diagnostic, script_hash, script, time_ms, "
                "estimated_ms, tflops, registers, spill_bytes, shared_bytes, "
                "device_ordinal, kernel_hash FROM other.candidates "
                "WHERE run_id = ?2");
        rc != SQLITE_OK)
      return rc;
    int rc;
    while ((rc = sqlite3_step(runs.stmt)) == SQLITE_ROW) {
      int64_t oldId = sqlite3_column_int64(runs.stmt, 0);
      if (sqlite3_column_int(runs.stmt, 2)) {
        ++stats.runsPresent;
        continue;
      }
      sqlite3_reset(insertRun.stmt);
      insertRun.bind(1, std::optional<int64_t>(oldId));
      if (int rc = sqlite3_step(insertRun.stmt); rc != SQLITE_DONE)
        return rc;
      int64_t newId = sqlite3_last_insert_rowid(db);
      sqlite3_reset(copyCandidates.stmt);
      copyCandidates.bind(1, std::optional<int64_t>(newId));
      copyCandidates.bind(2, std::optional<int64_t>(oldId));
      if (int rc = sqlite3_step(copyCandidates.stmt); rc != SQLITE_DONE)
        return rc;
      ++stats.runsImported;
    }
    if (rc != SQLITE_DONE)
      return rc;

    // Every run of the other file is here now: its winners point to their
    // runs by uid.
    Statement winners, exists, upsert;
    if (int rc = winners.prepare(
            db, "SELECT w.signature, w.target, w.toolchain, w.device, "
                "w.script, w.script_hash, w.time_ms, w.measured, w.model, "
                "(SELECT m.id FROM main.runs m JOIN other.runs o ON "
                "m.uid = o.uid WHERE o.id = w.run_id), w.timing, w.created, "
                "w.updated FROM other.winners w ORDER BY w.signature, "
                "w.target, w.toolchain, w.device");
        rc != SQLITE_OK)
      return rc;
    if (int rc = exists.prepare(
            db, "SELECT count(*) FROM main.winners WHERE signature = ? AND "
                "target = ? AND toolchain = ? AND device = ?");
        rc != SQLITE_OK)
      return rc;
    if (int rc = upsert.prepare(db, kUpsertWinner); rc != SQLITE_OK)
      return rc;
    while ((rc = sqlite3_step(winners.stmt)) == SQLITE_ROW) {
      sqlite3_reset(exists.stmt);
      for (int i = 0; i < 4; ++i)
        exists.bind(i + 1, winners.text(i));
      if (int rc = sqlite3_step(exists.stmt); rc != SQLITE_ROW)
        return rc;
      bool existed = sqlite3_column_int64(exists.stmt, 0) > 0;
      sqlite3_reset(upsert.stmt);
      for (int i = 0; i < 13; ++i)
        sqlite3_bind_value(upsert.stmt, i + 1,
                           sqlite3_column_value(winners.stmt, i));
      if (int rc = sqlite3_step(upsert.stmt); rc != SQLITE_DONE)
        return rc;
      bool changed = sqlite3_changes(db) > 0;
      if (!existed)
        ++stats.winnersAdded;
      else if (changed)
        ++stats.winnersReplaced;
      else
        ++stats.winnersKept;
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  });
  if (e)
    return std::move(e);
  return stats;
}
