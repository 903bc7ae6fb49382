//===- TuningDBTest.cpp - The tuning database -----------------------------===//
//
// Migrations, refused files (left byte for byte as they were), the
// keep-the-better winner rule, pruning, concurrent writers, and the past
// results and measurements a tuning run reuses.
//
//===----------------------------------------------------------------------===//

#include "TuningDBTestUtil.h"

#include <thread>

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::dbtest;

namespace {

//===----------------------------------------------------------------------===//
// Opening, migrations, refused files
//===----------------------------------------------------------------------===//

TEST(TuningDBOpen, NewFileIsCreatedAtTheLatestVersion) {
  TempDir dir;
  std::string path = dir.file("tuning.db");
  {
    auto db = openOrDie(path);
    ASSERT_TRUE(db);
    EXPECT_EQ(db->schemaVersion(), TuningDB::kSchemaVersion);
  }
  EXPECT_EQ(rawInt(path, "PRAGMA application_id"), TuningDB::kApplicationId);
  EXPECT_EQ(rawInt(path, "PRAGMA user_version"), TuningDB::kSchemaVersion);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM sqlite_master WHERE name = "
                         "'runs_by_key'"),
            1);
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt *stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0)),
               "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
}

TEST(TuningDBOpen, MigratesVersion1) {
  TempDir dir;
  std::string path = dir.file("old.db");
  rawExec(path, kVersion1);
  ASSERT_EQ(rawInt(path, "PRAGMA user_version"), 1);
  {
    auto db = openOrDie(path);
    ASSERT_TRUE(db);
    EXPECT_EQ(db->schemaVersion(), TuningDB::kSchemaVersion);
    auto winners = db->listWinners();
    ASSERT_TRUE(bool(winners)) << llvm::toString(winners.takeError());
    ASSERT_EQ(winners->size(), 1u);
    const WinnerInfo &w = winners->front();
    EXPECT_EQ(w.script, "old script");
    // The new column is filled from the old one.
    EXPECT_EQ(w.created, "2025-01-02 03:04:05");
    // Measured before timing protocols: no protocol.
    EXPECT_EQ(w.timing, "");
    EXPECT_EQ(w.runs, 1);
    EXPECT_EQ(w.candidates, 1);
    // And the migrated file takes new runs.
    ASSERT_FALSE(bool(db->record(makeRun("sig", 1.0, false, "new script"))));
    EXPECT_EQ(db->winner("sig", "sm_90", "22.1.8")->script, "new script");
  }
  EXPECT_EQ(rawInt(path, "PRAGMA user_version"), TuningDB::kSchemaVersion);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM pragma_table_info('winners') "
                         "WHERE name = 'timing'"),
            1);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM sqlite_master WHERE name = "
                         "'winners_by_target'"),
            1);
  // Opening again migrates nothing.
  auto again = openOrDie(path);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->schemaVersion(), TuningDB::kSchemaVersion);
}

TEST(TuningDBOpen, RefusesANewerSchemaUntouched) {
  TempDir dir;
  std::string path = dir.file("newer.db");
  { ASSERT_TRUE(openOrDie(path)); }
  rawExec(path, "PRAGMA user_version = 99");
  std::string before = readFile(path);
  std::string error = errorOf(TuningDB::open(path));
  EXPECT_NE(error.find("newer vibegemm (schema version 99"), std::string::npos)
      << error;
  EXPECT_EQ(readFile(path), before);
}

TEST(TuningDBOpen, RefusesAForeignSQLiteFileUntouched) {
  TempDir dir;
  std::string path = dir.file("foreign.db");
  rawExec(path, "CREATE TABLE notes(text TEXT); "
                "INSERT INTO notes VALUES('mine');");
  std::string before = readFile(path);
  std::string error = errorOf(TuningDB::open(path));
  EXPECT_NE(error.find("SQLite database of another program"), std::string::npos)
      << error;
  EXPECT_EQ(readFile(path), before);
  EXPECT_FALSE(llvm::sys::fs::exists(path + "-wal"));
}

TEST(TuningDBOpen, RefusesAFileThatIsNotSQLiteUntouched) {
  TempDir dir;
  std::string path = dir.file("notes.txt");
  std::string text(8192, 'x');
  writeFile(path, "These are my notes, not a database.\n" + text);
  std::string error = errorOf(TuningDB::open(path));
  EXPECT_NE(error.find("is not an SQLite database"), std::string::npos)
      << error;
  EXPECT_EQ(readFile(path), "These are my notes, not a database.\n" + text);
}

TEST(TuningDBOpen, RefusesADamagedFileUntouched) {
  TempDir dir;
  std::string path = dir.file("damaged.db");
  {
    auto db = openOrDie(path);
    ASSERT_TRUE(db);
    std::string body(3000, ' ');
    for (int i = 0; i < 20; ++i)
      ASSERT_FALSE(bool(db->record(makeRun("sig" + std::to_string(i), 1.0 + i,
                                           false, script("s", body)))));
  }
  std::string bytes = readFile(path);
  ASSERT_GT(bytes.size(), 4 * 4096u);
  for (size_t i = 4096; i < 3 * 4096; ++i)
    bytes[i] = static_cast<char>(0xA5 ^ (i * 7));
  writeFile(path, bytes);
  std::string error = errorOf(TuningDB::open(path));
  EXPECT_NE(error.find("damaged SQLite database"), std::string::npos) << error;
  EXPECT_EQ(readFile(path), bytes);
}

TEST(TuningDBOpen, DoesNotCreateWhenAskedNotTo) {
  TempDir dir;
  std::string path = dir.file("missing.db");
  TuningDB::OpenOptions options;
  options.create = false;
  std::string error = errorOf(TuningDB::open(path, options));
  EXPECT_NE(error.find("no tuning database at"), std::string::npos) << error;
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

//===----------------------------------------------------------------------===//
// Winners, history, pruning
//===----------------------------------------------------------------------===//

TEST(TuningDBRecord, KeepsTheBetterWinner) {
  TempDir dir;
  auto db = openOrDie(dir.file("tuning.db"));
  ASSERT_TRUE(db);
  auto best = [&] { return db->winner("sig", "sm_90", "22.1.8"); };
  ASSERT_FALSE(bool(db->record(makeRun("sig", 2.0, false, "est2"))));
  EXPECT_EQ(best()->script, "est2");
  ASSERT_FALSE(bool(db->record(makeRun("sig", 3.0, false, "est3"))));
  EXPECT_EQ(best()->script, "est2");
  ASSERT_FALSE(bool(db->record(makeRun("sig", 1.0, false, "est1"))));
  EXPECT_EQ(best()->script, "est1");
  // Measured beats estimated, however fast the estimate.
  ASSERT_FALSE(bool(db->record(makeRun("sig", 5.0, true, "meas5"))));
  EXPECT_EQ(best()->script, "meas5");
  EXPECT_TRUE(best()->measured);
  EXPECT_EQ(best()->device, "NVIDIA H200");
  ASSERT_FALSE(bool(db->record(makeRun("sig", 0.5, false, "est05"))));
  EXPECT_EQ(best()->script, "meas5");
  // A winner that failed is history, never the stored winner.
  ASSERT_FALSE(
      bool(db->record(makeRun("sig", 0.1, true, "broken", "wrong-result"))));
  EXPECT_EQ(best()->script, "meas5");
  // Winners are kept per device: the estimates' (no GPU, '') and the
  // H200's; without a device, the measured one is taken.
  auto winners = db->listWinners();
  ASSERT_TRUE(bool(winners));
  ASSERT_EQ(winners->size(), 2u);
  EXPECT_EQ((*winners)[0].device, "");
  EXPECT_EQ((*winners)[0].script, "est05");
  EXPECT_EQ((*winners)[1].device, "NVIDIA H200");
  EXPECT_EQ((*winners)[1].runs, 6);
  EXPECT_EQ((*winners)[1].candidates, 6);
  auto rows = db->runCandidates(*(*winners)[1].runId);
  ASSERT_TRUE(bool(rows));
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].script, "meas5");
  EXPECT_EQ((*rows)[0].timeMs, 5.0);
}

TEST(TuningDBRecord, ComparesTimesOnlyUnderOneTimingProtocol) {
  TempDir dir;
  auto db = openOrDie(dir.file("tuning.db"));
  ASSERT_TRUE(db);
  auto best = [&] { return db->winner("sig", "sm_90", "22.1.8"); };
  auto sustained = [](double time, const std::string &script) {
    TuningRun run = makeRun("sig", time, true, script);
    run.timing = kSustainedClockTiming;
    return run;
  };
  // A measurement from before timing protocols (nearer the boost clock).
  ASSERT_FALSE(bool(db->record(makeRun("sig", 1.0, true, "cold"))));
  EXPECT_EQ(best()->timing, "");
  // At the sustained clock the same kernel takes longer; the stored time is
  // not comparable, so the protocol's first measurement replaces it.
  ASSERT_FALSE(bool(db->record(sustained(1.2, "hot12"))));
  EXPECT_EQ(best()->script, "hot12");
  EXPECT_EQ(best()->timing, kSustainedClockTiming);
  // Under one protocol the lower time wins.
  ASSERT_FALSE(bool(db->record(sustained(1.3, "hot13"))));
  EXPECT_EQ(best()->script, "hot12");
  ASSERT_FALSE(bool(db->record(sustained(1.1, "hot11"))));
  EXPECT_EQ(best()->script, "hot11");
  // A protocol-less measurement never replaces one with a protocol,
  // however fast.
  ASSERT_FALSE(bool(db->record(makeRun("sig", 0.5, true, "cold05"))));
  EXPECT_EQ(best()->script, "hot11");
  // Estimates carry no protocol.
  ASSERT_FALSE(bool(db->record(makeRun("other", 2.0, false, "est"))));
  EXPECT_EQ(db->winner("other", "sm_90", "22.1.8")->timing, "");
}

TEST(TuningDBRecord, RejectsAWinnerIndexOutOfRange) {
  TempDir dir;
  auto db = openOrDie(dir.file("tuning.db"));
  ASSERT_TRUE(db);
  TuningRun run = makeRun("sig", 1.0, false, "s");
  run.winner = 3;
  llvm::Error e = db->record(run);
  EXPECT_TRUE(bool(e));
  llvm::consumeError(std::move(e));
}

TEST(TuningDBPrune, NeverDeletesAWinnersRun) {
  TempDir dir;
  std::string path = dir.file("tuning.db");
  auto db = openOrDie(path);
  ASSERT_TRUE(db);
  // Run 2 holds the best time; run 5 is the newest.
  for (double t : {3.0, 1.0, 4.0, 5.0, 6.0})
    ASSERT_FALSE(bool(db->record(makeRun("a", t, false, "t"))));
  ASSERT_FALSE(bool(db->record(makeRun("b", 1.0, false, "b"))));
  auto winnerRun = db->listWinners({"a", "", ""});
  ASSERT_TRUE(bool(winnerRun));
  ASSERT_EQ(*winnerRun->front().runId, 2);

  PrunePolicy keep;
  keep.keepRuns = 1;
  auto stats = db->prune(keep);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->runs, 3);
  EXPECT_EQ(stats->candidates, 3);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs WHERE id IN (2, 5)"), 2);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs"), 3);

  // Everything is old now: only the winners' runs stay.
  rawExec(path, "UPDATE runs SET created = '2000-01-01 00:00:00'");
  PrunePolicy old;
  old.olderThanDays = 30;
  stats = db->prune(old);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->runs, 1);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs WHERE id IN "
                         "(SELECT run_id FROM winners)"),
            2);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM candidates WHERE run_id NOT "
                         "IN (SELECT id FROM runs)"),
            0);
  EXPECT_FALSE(bool(db->prune(PrunePolicy())));
}

TEST(TuningDBConcurrency, WritersOnSeparateConnections) {
  TempDir dir;
  std::string path = dir.file("shared.db");
  constexpr int kWriters = 6, kRuns = 15;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kWriters);
  // Every writer opens the file while it does not exist yet.
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back([&, w] {
      auto db = TuningDB::open(path);
      if (!db) {
        errors[w] = llvm::toString(db.takeError());
        return;
      }
      for (int r = 0; r < kRuns; ++r)
        if (llvm::Error e = (*db)->record(makeRun("sig" + std::to_string(r % 3),
                                                  1.0 + w + r, false, "s")))
          errors[w] = llvm::toString(std::move(e));
    });
  for (std::thread &t : threads)
    t.join();
  for (const std::string &e : errors)
    EXPECT_EQ(e, "");
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs"), kWriters * kRuns);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM winners"), 3);
  EXPECT_EQ(rawInt(path, "SELECT min(time_ms) FROM winners"), 1);
}

TEST(TuningDBPastResult, FindsTheLatestKernelFailureOnTheSameDevice) {
  TempDir dir;
  std::unique_ptr<TuningDB> db = openOrDie(dir.file("t.db"));
  ASSERT_TRUE(db);
  // Run 1: candidate 1 (hash "v") faulted; run 2: it timed out.
  for (const char *status : {"fault", "timeout"}) {
    TuningRun run = makeRun("sig", 1.0, /*measured=*/true, script("a"));
    CandidateRow variant;
    variant.index = 1;
    variant.source = "builtin-variant";
    variant.status = status;
    variant.diagnostic = std::string("it ") + status;
    variant.script = script("b");
    variant.scriptHash = "v";
    run.candidates.push_back(variant);
    ASSERT_FALSE(bool(db->record(run)));
  }
  llvm::StringRef kernelFailures[] = {"fault", "timeout", "wrong-result"};
  std::optional<TuningDB::PastResult> past = db->pastResult(
      "sig", "sm_90", "22.1.8", "NVIDIA H200", "v", kernelFailures);
  ASSERT_TRUE(past);
  EXPECT_EQ(past->status, "timeout");
  EXPECT_EQ(past->diagnostic, "it timeout");
  EXPECT_EQ(past->runId, 2);
  EXPECT_FALSE(past->timeMs);
  // Another device, toolchain, signature or script, or other statuses: none.
  EXPECT_FALSE(db->pastResult("sig", "sm_90", "22.1.8", "NVIDIA H100", "v",
                               kernelFailures));
  EXPECT_FALSE(db->pastResult("sig", "sm_90", "23.0.0", "NVIDIA H200", "v",
                               kernelFailures));
  EXPECT_FALSE(db->pastResult("other", "sm_90", "22.1.8", "NVIDIA H200", "v",
                               kernelFailures));
  EXPECT_FALSE(db->pastResult("sig", "sm_90", "22.1.8", "NVIDIA H200", "h",
                               kernelFailures));
  llvm::StringRef wrongOnly[] = {"wrong-result"};
  EXPECT_FALSE(db->pastResult("sig", "sm_90", "22.1.8", "NVIDIA H200", "v",
                              wrongOnly));
}

TEST(TuningDBPastResult, GivesTheTimeOfAScriptThatRan) {
  TempDir dir;
  std::unique_ptr<TuningDB> db = openOrDie(dir.file("t.db"));
  ASSERT_TRUE(db);
  TuningRun run = makeRun("sig", 1.0, /*measured=*/true, script("a"));
  CandidateRow variant;
  variant.index = 1;
  variant.source = "builtin-variant";
  variant.status = "ok";
  variant.timeMs = 1.25;
  variant.script = script("b");
  variant.scriptHash = "v";
  run.candidates.push_back(variant);
  ASSERT_FALSE(bool(db->record(run)));
  llvm::StringRef ran[] = {"ok", "fault"};
  std::optional<TuningDB::PastResult> past =
      db->pastResult("sig", "sm_90", "22.1.8", "NVIDIA H200", "v", ran);
  ASSERT_TRUE(past);
  EXPECT_EQ(past->status, "ok");
  ASSERT_TRUE(past->timeMs);
  EXPECT_DOUBLE_EQ(*past->timeMs, 1.25);
  // Runs ranked by static estimates say nothing about the kernel.
  TuningRun estimated = makeRun("est", 1.0, /*measured=*/false, script("a"));
  estimated.candidates.push_back(variant);
  ASSERT_FALSE(bool(db->record(estimated)));
  EXPECT_FALSE(
      db->pastResult("est", "sm_90", "22.1.8", "NVIDIA H200", "v", ran));
}

TEST(TuningDBPastMeasurement, FindsAVerifiedKernelByItsHash) {
  TempDir dir;
  std::unique_ptr<TuningDB> db = openOrDie(dir.file("t.db"));
  ASSERT_TRUE(db);
  TuningRun run = makeRun("sig", 1.0, /*measured=*/true, script("a"));
  run.timing = kSustainedClockTiming;
  CandidateRow llm;
  llm.index = 1;
  llm.source = "llm";
  llm.round = 1;
  llm.status = "ok";
  llm.timeMs = 0.75;
  llm.script = script("b");
  llm.scriptHash = "s";
  llm.kernelHash = "k";
  run.candidates.push_back(llm);
  CandidateRow wrong = llm;
  wrong.index = 2;
  wrong.status = "wrong-result";
  wrong.timeMs = std::nullopt;
  wrong.kernelHash = "bad";
  run.candidates.push_back(wrong);
  ASSERT_FALSE(bool(db->record(run)));

  std::optional<TuningDB::PastResult> past = db->pastMeasurement(
      "sig", "sm_90", "NVIDIA H200", kSustainedClockTiming, "k");
  ASSERT_TRUE(past);
  ASSERT_TRUE(past->timeMs);
  EXPECT_DOUBLE_EQ(*past->timeMs, 0.75);
  EXPECT_EQ(past->runId, 1);
  // Read back with the run, and copied by a merge.
  auto rows = db->runCandidates(1);
  ASSERT_TRUE(bool(rows));
  EXPECT_EQ((*rows)[1].kernelHash, "k");
  EXPECT_EQ((*rows)[0].kernelHash, "");
  // Only a verified time counts, on the same device, target, signature and
  // timing protocol.
  EXPECT_FALSE(db->pastMeasurement("sig", "sm_90", "NVIDIA H200",
                                   kSustainedClockTiming, "bad"));
  EXPECT_FALSE(db->pastMeasurement("sig", "sm_90", "NVIDIA H100 80GB HBM3",
                                   kSustainedClockTiming, "k"));
  EXPECT_FALSE(db->pastMeasurement("sig", "sm_90a", "NVIDIA H200",
                                   kSustainedClockTiming, "k"));
  EXPECT_FALSE(db->pastMeasurement("other", "sm_90", "NVIDIA H200",
                                   kSustainedClockTiming, "k"));
  EXPECT_FALSE(
      db->pastMeasurement("sig", "sm_90", "NVIDIA H200", "boost", "k"));
  EXPECT_FALSE(db->pastMeasurement("sig", "sm_90", "NVIDIA H200",
                                   kSustainedClockTiming, ""));

  std::unique_ptr<TuningDB> other = openOrDie(dir.file("other.db"));
  ASSERT_TRUE(other);
  ASSERT_TRUE(bool(other->merge(dir.file("t.db"))));
  EXPECT_TRUE(other->pastMeasurement("sig", "sm_90", "NVIDIA H200",
                                     kSustainedClockTiming, "k"));
}

TEST(TuningDBRecord, TheSameRunRecordedAgainReplacesItsCandidates) {
  TempDir dir;
  std::string path = dir.file("t.db");
  std::unique_ptr<TuningDB> db = openOrDie(path);
  ASSERT_TRUE(db);
  // A checkpoint after the built-in candidate, then the run after a round.
  TuningRun run = makeRun("sig", 1.0, /*measured=*/true, script("a"));
  run.uid = "0123456789abcdef0123456789abcdef";
  ASSERT_FALSE(bool(db->record(run)));
  CandidateRow llm = run.candidates[0];
  llm.index = 1;
  llm.source = "llm";
  llm.timeMs = 0.5;
  llm.script = script("b");
  llm.scriptHash = "b";
  run.candidates.push_back(llm);
  run.winner = 1;
  ASSERT_FALSE(bool(db->record(run)));
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs"), 1);
  auto rows = db->runCandidates(1);
  ASSERT_TRUE(bool(rows));
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].source, "llm");
  std::optional<StoredWinner> win =
      db->winner("sig", "sm_90", "22.1.8", "NVIDIA H200");
  ASSERT_TRUE(win);
  EXPECT_EQ(win->script, script("b"));
  // Another uid is another run.
  run.uid = "fedcba9876543210fedcba9876543210";
  ASSERT_FALSE(bool(db->record(run)));
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM runs"), 2);
}

} // namespace
