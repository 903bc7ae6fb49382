//===- TuningDBMergeTest.cpp - Merging tuning databases -------------------===//
//
// The shards of a Slurm array merged into one database: the better winner
// per key and device, idempotence, refused files, and old schemas.
//
//===----------------------------------------------------------------------===//

#include "TuningDBTestUtil.h"

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::dbtest;

namespace {

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

} // namespace
