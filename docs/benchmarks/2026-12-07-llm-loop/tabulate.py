#!/usr/bin/env python3
"""Tables an LLM-loop run from the tuner's report.json: per dispatch, the
built-in schedule's measured time, cuBLAS's (timed in the built-in's run),
the best built-in variant's, the best LLM candidate's and the round that
found it, and how many candidates of each round compiled, were verified and
timed (a time the tuning database already held for the same kernel counts
as timed: reuse-measurements).
Usage: tabulate.py report.json"""
import json
import math
import sys

report = json.load(open(sys.argv[1]))
print("| dispatch | problem | cuBLAS ms | built-in ms | best variant ms | best LLM ms (round) | built-in / best LLM | cuBLAS / best | LLM ok per round |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
ratios = []


def shape(p):
    return "%dx%dx%d%s" % (p["m"], p["n"], p["k"], " B^T" if p["transpose_b"] else "")


for d in report["dispatches"]:
    cands = d["candidates"]
    timed = [c for c in cands if c["status"] == "ok" and c.get("timing") == "measured"]
    def best(source):
        pool = [c for c in timed if c["source"] == source]
        return min(pool, key=lambda c: c["time_ms"]) if pool else None
    builtin, variant, llm = best("builtin"), best("builtin-variant"), best("llm")
    rounds = {}
    for c in cands:
        if c["source"] == "llm":
            ok, total = rounds.get(c["round"], (0, 0))
            rounds[c["round"]] = (ok + (c in timed), total + 1)
    ms = lambda c: "%.4g" % c["time_ms"] if c else "-"
    cublas = ((builtin or {}).get("measurement") or {}).get("cublas") or {}
    cublas_ms = cublas.get("time_ms")
    best_ms = min(c["time_ms"] for c in timed) if timed else None
    ratio = builtin["time_ms"] / llm["time_ms"] if builtin and llm else math.nan
    if not math.isnan(ratio):
        ratios.append(ratio)
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        d["name"], shape(d["problem"]),
        "%.4g" % cublas_ms if cublas_ms else "-", ms(builtin), ms(variant),
        "%s (%d)" % (ms(llm), llm["round"]) if llm else "-",
        "%.3f" % ratio if not math.isnan(ratio) else "-",
        "%.3f" % (cublas_ms / best_ms) if cublas_ms and best_ms else "-",
        ", ".join("r%d %d/%d" % (r, ok, n) for r, (ok, n) in sorted(rounds.items()))))
if ratios:
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print("\nGeometric mean of built-in / best LLM over %d dispatches: %.3f" % (len(ratios), geo))
