# Summarizes the runs of reuse-measurements.test: the stand-in runner's log
# and each report's LLM candidates.
import json
import os
import sqlite3
import sys

out = sys.argv[1]
times = {}
for name in sys.argv[2:]:
    with open(os.path.join(out, name + ".jsonl")) as f:
        runs = [json.loads(line) for line in f]
    print("%s: runs %d, cublas %d" % (name, len(runs), sum(r["cublas"] for r in runs)))
    with open(os.path.join(out, name, "report.json")) as f:
        report = json.load(f)
    llm = [c for c in report["dispatches"][0]["candidates"] if c["source"] == "llm"]
    print("%s: llm %s; measured_in_run %s" % (
        name, " ".join(c["status"] for c in llm),
        " ".join(str(c.get("measured_in_run", "-")) for c in llm)))
    times[name] = [c["time_ms"] for c in llm]
    if name == "again":
        print("again: llm times as first", times["again"] == times["first"])
        db = sqlite3.connect(os.path.join(out, "t.db"))
        timing = db.execute("SELECT timing FROM runs ORDER BY id DESC").fetchone()
        print("again: timing", timing[0])
