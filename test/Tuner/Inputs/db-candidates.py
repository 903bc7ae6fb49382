"""Prints each run of a vibegemm tuning database (its timing protocol) and
its candidates (source, status, whether a kernel hash is stored), in order."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
for run_id, timing in db.execute("select id, timing from runs order by id"):
    print("run", run_id, timing)
    for source, status, kernel in db.execute(
            "select source, status, kernel_hash from candidates where run_id = ? "
            "order by idx", (run_id,)):
        print(" ", source, status, "kernel" if kernel else "no-kernel")
