#!/usr/bin/env python3
"""Turns run.sh's output folder into results.json and a Markdown table.

    summarize.py RUN_OUTPUT_DIR CONFIGS_TXT > table.md   (writes results.json beside it)
"""
import glob
import json
import os
import sys

out, configs_path = sys.argv[1], sys.argv[2]
configs = {}
for line in open(configs_path):
    if line.strip() and not line.startswith("#"):
        name, _, cfg = line.strip().partition(" ")
        configs[name] = cfg
rows = {}
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(f)[:-5]
    if name not in configs:
        continue
    try:
        r = json.load(open(f))
    except ValueError as e:
        rows[name] = {"status": "unreadable", "diagnostic": str(e)}
        continue
    c = r.get("cublas") or {}
    rows[name] = {
        "config": configs[name],
        "status": r.get("status"),
        "time_ms": r.get("time_ms"),
        "gbps": r.get("gbps"),
        "cublas_ms": c.get("time_ms"),
        "max_rel_err": max((o.get("max_rel_err") or 0 for o in r.get("outputs", [])), default=None),
        "timing": r.get("timing"),
        "diagnostic": (r.get("diagnostic") or "")[:300],
    }
device = open(os.path.join(out, "device.txt")).read().strip().splitlines()[-1]
json.dump({"device": device, "rows": rows}, open(os.path.join(os.path.dirname(configs_path) or ".", "results.json"), "w"), indent=1)
print(f"Device: {device}\n")
print("| candidate | configuration | status | vibegemm us | GB/s | cuBLAS us | cuBLAS / vibegemm | max rel err |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for name, r in rows.items():
    t, cb = r["time_ms"], r["cublas_ms"]
    fmt = lambda v: f"{v * 1000:.1f}" if v else "-"
    ratio = f"{cb / t:.2f}" if t and cb else "-"
    gbps = f"{r['gbps']:.0f}" if r.get("gbps") else "-"
    err = f"{r['max_rel_err']:.1e}" if r["max_rel_err"] else "-"
    print(f"| {name} | {r['config']} | {r['status']} | {fmt(t)} | {gbps} | {fmt(cb)} | {ratio} | {err} |")
