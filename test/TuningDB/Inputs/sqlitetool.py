"""Small SQLite helpers for the tuning database tests.

  sqlitetool.py check DB          integrity_check and row counts
  sqlitetool.py sql DB STATEMENT  run one statement
  sqlitetool.py scribble FILE OFFSET LENGTH
                                  overwrite bytes with a fixed garbage pattern
  sqlitetool.py foreign DB        make an SQLite file of another program
  sqlitetool.py v1 DB             make a version 1 tuning database with one
                                  run and its winner
"""

import sqlite3
import sys

# The schema of version 1, as the first vibegemm release wrote it.
VERSION_1 = """
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
  VALUES('mm8x8x8_old', 'sm_90', '22.1.8', 'NVIDIA H200', 'old-model', 1);
INSERT INTO candidates(run_id, idx, source, round, status, script, time_ms)
  VALUES(1, 0, 'llm', 1, 'ok', 'transform.named_sequence @old(%arg0: '
         || '!transform.any_op {transform.consumed}) {'
         || char(10) || '  transform.yield ' || char(10) || '}', 0.5);
INSERT INTO winners(signature, target, toolchain, script, time_ms, measured,
  device, model, run_id, updated)
  SELECT 'mm8x8x8_old', 'sm_90', '22.1.8', script, 0.5, 1, 'NVIDIA H200',
         'old-model', 1, '2025-06-01 12:00:00' FROM candidates;
"""


def main():
    command, path = sys.argv[1], sys.argv[2]
    if command == "check":
        db = sqlite3.connect(path)
        print("integrity", db.execute("PRAGMA integrity_check").fetchone()[0])
        for table in ("runs", "candidates", "winners"):
            count = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            print(table, count)
        print("version", db.execute("PRAGMA user_version").fetchone()[0])
        print("journal", db.execute("PRAGMA journal_mode").fetchone()[0])
    elif command == "sql":
        db = sqlite3.connect(path)
        db.execute(sys.argv[3])
        db.commit()
    elif command == "scribble":
        offset, length = int(sys.argv[3]), int(sys.argv[4])
        with open(path, "r+b") as f:
            f.seek(offset)
            f.write(bytes((i * 37 + 11) % 256 for i in range(length)))
    elif command == "foreign":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes(text TEXT)")
        db.execute("INSERT INTO notes VALUES('not yours')")
        db.commit()
    elif command == "v1":
        db = sqlite3.connect(path)
        db.executescript(VERSION_1)
        db.commit()
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
