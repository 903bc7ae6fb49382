//===- TuningDBTest.cpp - The tuning database and its spec files ---------===//
//
// Migrations, refused files (left byte for byte as they were), the
// keep-the-better winner rule, pruning, concurrent writers, and spec files
// written deterministically and read back to the same bytes.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TuningDB/TuningDB.h"
#include "vibegemm/TuningDB/TuningSpec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sqlite3.h>

#include <thread>

using namespace mlir::vibegemm;

namespace {

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

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "<unreadable>";
}

void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec);
  os << text;
}

/// Runs SQL on `path` with a plain SQLite connection.
void rawExec(const std::string &path, const std::string &sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char *msg = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  EXPECT_EQ(rc, SQLITE_OK) << (msg ? msg : "") << " in " << sql;
  sqlite3_free(msg);
  sqlite3_close(db);
}

int64_t rawInt(const std::string &path, const std::string &sql) {
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

std::string script(llvm::StringRef name, llvm::StringRef body = "") {
  return ("transform.named_sequence @" + name +
          "(%arg0: !transform.any_op {transform.consumed}) {\n" + body +
          "  transform.yield \n}")
      .str();
}

/// A run of `signature` on sm_90 whose one candidate is the winner.
TuningRun makeRun(const std::string &signature, std::optional<double> time,
                  bool measured, const std::string &scriptText,
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

std::unique_ptr<TuningDB> openOrDie(const std::string &path) {
  auto db = TuningDB::open(path);
  if (!db) {
    ADD_FAILURE() << llvm::toString(db.takeError());
    return nullptr;
  }
  return std::move(*db);
}

std::string errorOf(llvm::Expected<std::unique_ptr<TuningDB>> db) {
  if (db)
    return "";
  return llvm::toString(db.takeError());
}

/// The version 1 schema exactly as the first vibegemm release wrote it.
constexpr const char *kVersion1 = R"sql(
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

//===----------------------------------------------------------------------===//
// Merging databases (the shards of a Slurm array)
//===----------------------------------------------------------------------===//

/// A run of `signature` on `device` whose one candidate is the winner.
TuningRun runOn(const std::string &signature, const std::string &device,
                std::optional<double> time, bool measured,
                const std::string &scriptText) {
  TuningRun run = makeRun(signature, time, measured, scriptText);
  run.device = device;
  return run;
}

/// Every winner as "signature device script time measured", one per line.
std::string winnersOf(TuningDB &db) {
  auto winners = db.listWinners();
  if (!winners)
    return llvm::toString(winners.takeError());
  std::string out;
  for (const WinnerInfo &w : *winners)
    out += w.signature + " " + w.device + " " + w.script + " " +
           (w.timeMs ? std::to_string(*w.timeMs) : "-") + " " +
           (w.measured ? "measured" : "estimated") + "\n";
  return out;
}

TEST(TuningDBMerge, KeepsTheBetterWinnerPerKey) {
  TempDir dir;
  std::string mainPath = dir.file("main.db"), shardPath = dir.file("shard.db");
  const std::string h200 = "NVIDIA H200";
  auto db = openOrDie(mainPath);
  ASSERT_TRUE(db);
  {
    auto shard = openOrDie(shardPath);
    ASSERT_TRUE(shard);
    // faster: the shard's measurement is faster and replaces ours.
    ASSERT_FALSE(bool(db->record(runOn("faster", h200, 2.0, true, "ours"))));
    ASSERT_FALSE(
        bool(shard->record(runOn("faster", h200, 1.0, true, "theirs"))));
    // slower: ours is faster and stays.
    ASSERT_FALSE(bool(db->record(runOn("slower", h200, 1.0, true, "ours"))));
    ASSERT_FALSE(
        bool(shard->record(runOn("slower", h200, 3.0, true, "theirs"))));
    // measured: a measurement beats an estimate, however fast the estimate.
    ASSERT_FALSE(bool(db->record(runOn("measured", h200, 0.1, false, "ours"))));
    ASSERT_FALSE(
        bool(shard->record(runOn("measured", h200, 5.0, true, "theirs"))));
    // estimate: ... and an estimate never replaces a measurement.
    ASSERT_FALSE(bool(db->record(runOn("estimate", h200, 5.0, true, "ours"))));
    ASSERT_FALSE(
        bool(shard->record(runOn("estimate", h200, 0.1, false, "theirs"))));
    // equal: the same time keeps the stored winner.
    ASSERT_FALSE(bool(db->record(runOn("equal", h200, 1.5, true, "ours"))));
    ASSERT_FALSE(
        bool(shard->record(runOn("equal", h200, 1.5, true, "theirs"))));
    // new: a key only the shard has is added.
    ASSERT_FALSE(bool(shard->record(runOn("new", h200, 1.0, true, "theirs"))));
  }
  auto stats = db->merge(shardPath);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->runsImported, 6);
  EXPECT_EQ(stats->runsPresent, 0);
  EXPECT_EQ(stats->winnersAdded, 1);
  EXPECT_EQ(stats->winnersReplaced, 2);
  EXPECT_EQ(stats->winnersKept, 3);
  EXPECT_EQ(winnersOf(*db), "equal NVIDIA H200 ours 1.500000 measured\n"
                            "estimate NVIDIA H200 ours 5.000000 measured\n"
                            "faster NVIDIA H200 theirs 1.000000 measured\n"
                            "measured NVIDIA H200 theirs 5.000000 measured\n"
                            "new NVIDIA H200 theirs 1.000000 measured\n"
                            "slower NVIDIA H200 ours 1.000000 measured\n");
  // Nothing is lost: every run and candidate of both files is history, and
  // a replaced winner points to the copy of the shard's run.
  EXPECT_EQ(rawInt(mainPath, "SELECT count(*) FROM runs"), 11);
  EXPECT_EQ(rawInt(mainPath, "SELECT count(*) FROM candidates"), 11);
  auto faster = db->listWinners({"faster", "", ""});
  ASSERT_TRUE(bool(faster));
  ASSERT_EQ(faster->size(), 1u);
  EXPECT_EQ(faster->front().runs, 2);
  auto rows = db->runCandidates(*faster->front().runId);
  ASSERT_TRUE(bool(rows));
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().script, "theirs");
}

TEST(TuningDBMerge, IsIdempotent) {
  TempDir dir;
  std::string mainPath = dir.file("main.db"), shardPath = dir.file("shard.db");
  {
    auto shard = openOrDie(shardPath);
    ASSERT_TRUE(shard);
    ASSERT_FALSE(bool(shard->record(runOn("a", "gpu", 1.0, true, "a1"))));
    ASSERT_FALSE(bool(shard->record(runOn("a", "gpu", 2.0, true, "a2"))));
    ASSERT_FALSE(bool(shard->record(runOn("b", "", 3.0, false, "b"))));
  }
  auto db = openOrDie(mainPath);
  ASSERT_TRUE(db);
  auto first = db->merge(shardPath);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(first->runsImported, 3);
  EXPECT_EQ(first->winnersAdded, 2);
  std::string after = winnersOf(*db);
  auto second = db->merge(shardPath);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(second->runsImported, 0);
  EXPECT_EQ(second->runsPresent, 3);
  EXPECT_EQ(second->winnersAdded, 0);
  EXPECT_EQ(second->winnersReplaced, 0);
  EXPECT_EQ(second->winnersKept, 2);
  EXPECT_EQ(winnersOf(*db), after);
  EXPECT_EQ(rawInt(mainPath, "SELECT count(*) FROM runs"), 3);
  EXPECT_EQ(rawInt(mainPath, "SELECT count(*) FROM candidates"), 3);
  // The copies keep the runs' uids; a file cannot be merged into itself.
  EXPECT_EQ(rawInt(mainPath, "SELECT count(DISTINCT uid) FROM runs WHERE "
                             "length(uid) = 32"),
            3);
  auto self = db->merge(mainPath);
  ASSERT_FALSE(bool(self));
  EXPECT_NE(llvm::toString(self.takeError()).find("into itself"),
            std::string::npos);
}

TEST(TuningDBMerge, WinnersPerDeviceAndADeterministicLookup) {
  TempDir dir;
  std::string aPath = dir.file("a.db"), bPath = dir.file("b.db");
  {
    auto a = openOrDie(aPath);
    auto b = openOrDie(bPath);
    ASSERT_TRUE(a && b);
    ASSERT_FALSE(bool(a->record(runOn("sig", "H200", 2.0, true, "h200"))));
    ASSERT_FALSE(bool(b->record(runOn("sig", "H100", 1.0, true, "h100"))));
    ASSERT_FALSE(bool(b->record(runOn("sig", "", 0.5, false, "estimate"))));
    ASSERT_FALSE(bool(a->record(runOn("tie", "B200", 1.0, true, "b200"))));
    ASSERT_FALSE(bool(b->record(runOn("tie", "A100", 1.0, true, "a100"))));
  }
  // Merged in either order, the same rows and the same choices.
  std::string expected;
  for (auto order : {std::pair(aPath, bPath), std::pair(bPath, aPath)}) {
    std::string path =
        dir.file("merged-" + llvm::sys::path::stem(order.first).str() + ".db");
    auto db = openOrDie(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(bool(db->merge(order.first)));
    ASSERT_TRUE(bool(db->merge(order.second)));
    std::string rows = winnersOf(*db);
    if (expected.empty())
      expected = rows;
    EXPECT_EQ(rows, expected);
    EXPECT_EQ(rawInt(path, "SELECT count(*) FROM winners"), 5);
    // A device's own winner, when it has one.
    EXPECT_EQ(db->winner("sig", "sm_90", "22.1.8", "H200")->script, "h200");
    EXPECT_EQ(db->winner("sig", "sm_90", "22.1.8", "H100")->script, "h100");
    // Otherwise the fastest measurement (never the faster estimate), and
    // on equal times the device that sorts first.
    EXPECT_EQ(db->winner("sig", "sm_90", "22.1.8")->script, "h100");
    EXPECT_EQ(db->winner("sig", "sm_90", "22.1.8", "B200")->script, "h100");
    EXPECT_EQ(db->winner("tie", "sm_90", "22.1.8")->script, "a100");
    // A spec holds that same choice, one per key.
    WinnerFilter best;
    best.bestPerKey = true;
    auto perKey = db->listWinners(best);
    ASSERT_TRUE(bool(perKey));
    ASSERT_EQ(perKey->size(), 2u);
    EXPECT_EQ((*perKey)[0].script, "h100");
    EXPECT_EQ((*perKey)[1].script, "a100");
  }
}

TEST(TuningDBMerge, RefusesABadFileAndLeavesTheDatabaseUnchanged) {
  TempDir dir;
  std::string mainPath = dir.file("main.db");
  std::string damaged = dir.file("damaged.db"),
              foreign = dir.file("foreign.db"), text = dir.file("notes.sqlite");
  {
    auto shard = openOrDie(damaged);
    ASSERT_TRUE(shard);
    std::string body(3000, ' ');
    for (int i = 0; i < 20; ++i)
      ASSERT_FALSE(
          bool(shard->record(runOn("sig" + std::to_string(i), "gpu", 1.0 + i,
                                   true, script("s", body)))));
  }
  std::string bytes = readFile(damaged);
  ASSERT_GT(bytes.size(), 4 * 4096u);
  for (size_t i = 4096; i < 3 * 4096; ++i)
    bytes[i] = static_cast<char>(0xA5 ^ (i * 7));
  writeFile(damaged, bytes);
  rawExec(foreign, "CREATE TABLE notes(text TEXT); "
                   "INSERT INTO notes VALUES('mine');");
  writeFile(text, "not a database\n");

  auto db = openOrDie(mainPath);
  ASSERT_TRUE(db);
  ASSERT_FALSE(bool(db->record(runOn("sig1", "gpu", 9.0, true, "ours"))));
  std::string before = winnersOf(*db);
  for (auto [path, why] :
       {std::pair(damaged, "damaged SQLite database"),
        std::pair(foreign, "SQLite database of another program"),
        std::pair(text, "is not an SQLite database"),
        std::pair(dir.file("missing.db"), "no tuning database at")}) {
    auto stats = db->merge(path);
    ASSERT_FALSE(bool(stats)) << path;
    std::string error = llvm::toString(stats.takeError());
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  EXPECT_EQ(winnersOf(*db), before);
  EXPECT_EQ(rawInt(mainPath, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(readFile(damaged), bytes);
  EXPECT_FALSE(llvm::sys::fs::exists(dir.file("missing.db")));
}

/// Version 3 (before winners per device and run uids) as that release
/// wrote it: migrations 0 to 2 by hand, then two runs and a winner whose
/// device is NULL.
constexpr const char *kVersion3Upgrade = R"sql(
  CREATE INDEX runs_by_key ON runs(signature, target, toolchain);
  CREATE INDEX winners_by_target ON winners(target, toolchain);
  ALTER TABLE winners ADD COLUMN created TEXT;
  UPDATE winners SET created = updated;
  ALTER TABLE runs ADD COLUMN timing TEXT;
  ALTER TABLE winners ADD COLUMN timing TEXT;
  INSERT INTO runs(signature, target, toolchain, device, model, measured,
    timing) VALUES('sig', 'sm_90', '22.1.8', 'NVIDIA H200', '', 1,
    'sustained-clock');
  INSERT INTO candidates(run_id, idx, source, status, script, time_ms)
    VALUES(2, 0, 'builtin', 'ok', 'measured script', 1.25);
  INSERT INTO winners(signature, target, toolchain, script, time_ms,
    measured, device, run_id, updated, created)
    VALUES('nulldev', 'sm_90', '22.1.8', 'nulldev script', 3.0, 0, NULL, 1,
           '2025-02-03 04:05:06', '2025-02-03 04:05:06');
  PRAGMA user_version = 3;)sql";

TEST(TuningDBMerge, MigratesVersion3) {
  TempDir dir;
  std::string path = dir.file("v3.db");
  rawExec(path, kVersion1);
  rawExec(path, kVersion3Upgrade);
  ASSERT_EQ(rawInt(path, "PRAGMA user_version"), 3);
  {
    auto db = openOrDie(path);
    ASSERT_TRUE(db);
    EXPECT_EQ(db->schemaVersion(), TuningDB::kSchemaVersion);
    // The rows survive the rebuilt table; a NULL device becomes ''.
    EXPECT_EQ(winnersOf(*db), "nulldev  nulldev script 3.000000 estimated\n"
                              "sig  old script 2.500000 estimated\n");
    auto nulldev = db->listWinners({"nulldev", "", ""});
    ASSERT_TRUE(bool(nulldev));
    EXPECT_EQ(nulldev->front().created, "2025-02-03 04:05:06");
    EXPECT_EQ(nulldev->front().runId, 1);
    // The key now has a device: the H200's winner is a row of its own.
    ASSERT_FALSE(bool(db->record(runOn("sig", "NVIDIA H200", 1.0, true, "m"))));
    EXPECT_EQ(rawInt(path, "SELECT count(*) FROM winners WHERE signature = "
                           "'sig'"),
              2);
    EXPECT_EQ(db->winner("sig", "sm_90", "22.1.8")->script, "m");
  }
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM winners WHERE device IS NULL"),
            0);
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
                         "('winners_by_target', 'runs_by_uid')"),
            2);
  // Every run has a distinct uid, the old ones back-filled.
  EXPECT_EQ(rawInt(path, "SELECT count(DISTINCT uid) FROM runs WHERE "
                         "length(uid) = 32 AND uid NOT GLOB '*[^0-9a-f]*'"),
            3);
  // Merging the migrated file twice copies its runs once.
  auto db = openOrDie(dir.file("merged.db"));
  ASSERT_TRUE(db);
  ASSERT_EQ(db->merge(path)->runsImported, 3);
  ASSERT_EQ(db->merge(path)->runsPresent, 3);
  EXPECT_EQ(rawInt(dir.file("merged.db"), "SELECT count(*) FROM runs"), 3);
}

//===----------------------------------------------------------------------===//
// Spec files
//===----------------------------------------------------------------------===//

WinnerInfo makeWinner(const std::string &signature, const std::string &target,
                      std::optional<double> time, const std::string &text) {
  WinnerInfo w;
  w.signature = signature;
  w.target = target;
  w.toolchain = "22.1.8";
  w.script = text;
  w.timeMs = time;
  w.measured = time.has_value();
  w.device = "NVIDIA H200";
  w.model = "model \"q\"";
  return w;
}

TEST(TuningSpec, SymbolIsSanitized) {
  EXPECT_EQ(specSymbol("mm64x64x64_f32_f32_NN_0123abcd"),
            "vg_mm64x64x64_f32_f32_NN_0123abcd");
  EXPECT_EQ(specSymbol("a.b-c d"), "vg_a_b_c_d");
}

TEST(TuningSpec, WritesADeterministicModule) {
  std::vector<WinnerInfo> winners = {
      makeWinner("sig_b", "sm_90", 0.004478447951466128,
                 script("gemm_d1",
                        "  %0 = transform.structured.match "
                        "ops{[\"linalg.fill\"]} in %arg0 : "
                        "(!transform.any_op) -> !transform.any_op\n")),
      makeWinner("sig_a", "sm_90", std::nullopt, script("gemm_d0"))};
  auto text = writeSpec(winners);
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  std::swap(winners[0], winners[1]);
  auto swapped = writeSpec(winners);
  ASSERT_TRUE(bool(swapped));
  EXPECT_EQ(*text, *swapped);
  EXPECT_EQ(
      *text,
      "// vibegemm tuning spec: best schedule per dispatch signature.\n"
      "// Exported by vibegemm-db; apply with\n"
      "//   vibegemm-opt --vibegemm-compile=\"specs=THIS_FILE\" model.mlir\n"
      "module attributes {transform.with_named_sequence, "
      "vibegemm.tuning_spec} {\n"
      "  // sig_a: no time (estimated) on NVIDIA H200, model model \"q\"\n"
      "  transform.named_sequence @vg_sig_a(%arg0: !transform.any_op "
      "{transform.consumed}) attributes {vibegemm.signature = \"sig_a\", "
      "vibegemm.target = \"sm_90\", vibegemm.toolchain = \"22.1.8\", "
      "vibegemm.measured = false, vibegemm.device = \"NVIDIA H200\", "
      "vibegemm.model = \"model \\\"q\\\"\"} {\n"
      "    transform.yield \n"
      "  }\n"
      "\n"
      "  // sig_b: 0.004478 ms (measured) on NVIDIA H200, model model \"q\"\n"
      "  transform.named_sequence @vg_sig_b(%arg0: !transform.any_op "
      "{transform.consumed}) attributes {vibegemm.signature = \"sig_b\", "
      "vibegemm.target = \"sm_90\", vibegemm.toolchain = \"22.1.8\", "
      "vibegemm.time_ms = 0.004478447951466128, vibegemm.measured = true, "
      "vibegemm.device = \"NVIDIA H200\", vibegemm.model = "
      "\"model \\\"q\\\"\"} {\n"
      "    %0 = transform.structured.match ops{[\"linalg.fill\"]} in %arg0 "
      ": (!transform.any_op) -> !transform.any_op\n"
      "    transform.yield \n"
      "  }\n"
      "}\n");
}

TEST(TuningSpec, ReadBackWritesTheSameBytes) {
  std::vector<WinnerInfo> winners = {
      // Already has attributes, results, a comment with a brace, odd
      // indentation and a blank line.
      makeWinner("sig/x", "sm_90", 1e-05,
                 "// leading comment\n"
                 "transform.named_sequence @s(%arg0: !transform.any_op "
                 "{transform.consumed}) -> () attributes {foo = "
                 "array<i64: 1, 2>, vibegemm.signature = \"stale\"} {\n"
                 "      // a } in a comment\n"
                 "\n"
                 "\t%0 = transform.param.constant \"}\" -> "
                 "!transform.any_param\n"
                 "  transform.yield \n}\n\n"),
      // One signature on two targets.
      makeWinner("sig_y", "sm_80", 12.0, script("a")),
      makeWinner("sig_y", "sm_90", 3.25, script("b")),
  };
  winners[0].device = "";
  winners[0].model = "";
  winners[0].measured = false;
  auto first = writeSpec(winners);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_NE(first->find("@vg_sig_y_sm_80_22_1_8("), std::string::npos);
  EXPECT_NE(first->find("@vg_sig_y_sm_90_22_1_8("), std::string::npos);
  EXPECT_NE(first->find("@vg_sig_x("), std::string::npos);
  EXPECT_NE(first->find("vibegemm.time_ms = 1.0e-05"), std::string::npos);
  EXPECT_EQ(first->find("stale"), std::string::npos);
  EXPECT_EQ(first->find("leading comment"), std::string::npos);

  auto read = readSpec(*first, "spec.mlir");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].signature, "sig/x");
  EXPECT_EQ((*read)[0].timeMs, 1e-05);
  EXPECT_FALSE((*read)[0].measured);
  EXPECT_EQ((*read)[1].target, "sm_80");
  EXPECT_EQ((*read)[2].timeMs, 3.25);
  EXPECT_EQ((*read)[2].model, "model \"q\"");
  // The stored script is a plain sequence again.
  EXPECT_EQ((*read)[2].script,
            "transform.named_sequence @vg_sig_y_sm_90_22_1_8(%arg0: "
            "!transform.any_op {transform.consumed}) {\n"
            "  transform.yield \n}");
  EXPECT_NE(
      (*read)[0].script.find("-> () attributes {foo = array<i64: 1, 2>} {\n"),
      std::string::npos);

  auto second = writeSpec(*read);
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(*second, *first);
}

TEST(TuningSpec, RoundTripsThroughADatabase) {
  TempDir dir;
  auto source = openOrDie(dir.file("a.db"));
  ASSERT_TRUE(source);
  ASSERT_FALSE(
      bool(source->record(makeRun("s1", 0.1 + 0.2, true, script("d0")))));
  ASSERT_FALSE(bool(source->record(makeRun("s2", 7.0, false, script("d1")))));
  TuningRun sustained = makeRun("s3", 0.25, true, script("d2"));
  sustained.timing = kSustainedClockTiming;
  ASSERT_FALSE(bool(source->record(sustained)));
  auto first = writeSpec(*source->listWinners());
  ASSERT_TRUE(bool(first));

  auto target = openOrDie(dir.file("b.db"));
  ASSERT_TRUE(target);
  auto entries = readSpec(*first, "spec.mlir");
  ASSERT_TRUE(bool(entries));
  for (const WinnerInfo &w : *entries) {
    auto stored = target->importWinner(w);
    ASSERT_TRUE(bool(stored));
    EXPECT_TRUE(*stored);
  }
  auto second = writeSpec(*target->listWinners());
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(*second, *first);
  // Importing the same spec again keeps what is there (not better).
  auto again = target->importWinner(entries->front());
  ASSERT_TRUE(bool(again));
  EXPECT_FALSE(*again);
  auto imported = target->listWinners({"s1", "", ""});
  ASSERT_TRUE(bool(imported));
  EXPECT_EQ(imported->front().runs, 2);
  EXPECT_EQ(imported->front().device, "NVIDIA H200");
  EXPECT_EQ(imported->front().scriptHash.size(), 16u);
  // The timing protocol travels with the spec.
  EXPECT_NE(first->find("vibegemm.timing = \"sustained-clock\""),
            std::string::npos);
  auto hot = target->listWinners({"s3", "", ""});
  ASSERT_TRUE(bool(hot));
  EXPECT_EQ(hot->front().timing, kSustainedClockTiming);
  EXPECT_EQ(target->listWinners({"s1", "", ""})->front().timing, "");
}

TEST(TuningSpec, ReportsBadFiles) {
  auto empty = readSpec("module {}\n", "empty.mlir");
  ASSERT_FALSE(bool(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("empty.mlir: no"),
            std::string::npos);
  auto unbalanced =
      readSpec("module {\n  transform.named_sequence @x(%a: !transform.any_op) "
               "attributes {vibegemm.signature = \"s\"} {\n",
               "cut.mlir");
  ASSERT_FALSE(bool(unbalanced));
  EXPECT_NE(llvm::toString(unbalanced.takeError()).find("cut.mlir:2:"),
            std::string::npos);
  auto noTarget = readSpec("transform.named_sequence @x() attributes "
                           "{vibegemm.signature = \"s\"} {}",
                           "t.mlir");
  ASSERT_FALSE(bool(noTarget));
  EXPECT_NE(llvm::toString(noTarget.takeError()).find("vibegemm.target"),
            std::string::npos);
  WinnerInfo junk = makeWinner("s", "sm_90", 1.0, "not a schedule");
  auto written = writeSpec({junk});
  ASSERT_FALSE(bool(written));
  llvm::consumeError(written.takeError());
}

} // namespace

namespace {

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
