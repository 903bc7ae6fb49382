"""Prints row counts and winners of a vibegemm tuning database, sorted."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
for table in ("runs", "candidates", "winners"):
    print(table, db.execute(f"select count(*) from {table}").fetchone()[0])
for sig, target, toolchain, measured in sorted(db.execute(
        "select signature, target, toolchain, measured from winners")):
    print("winner", sig, target, toolchain, "measured", measured)
