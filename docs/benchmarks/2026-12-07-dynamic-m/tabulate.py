#!/usr/bin/env python3
"""Condenses run-gpu.sh's output directory into results.json and table.md.

Usage: tabulate.py OUT_DIR   (writes results.json and table.md here)
"""
import json
import os
import sys

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
device = open(os.path.join(out, "device.txt")).read().strip()
results = {"device": device, "dynamic": {}, "static": {}}
for target in ("sm_90", "sm_90a"):
    dyn = json.load(open(os.path.join(out, f"dyn-{target}.json")))
    results["dynamic"][target] = [
        {"m": r["sizes"]["M"], "status": r["status"], "reference": r["reference"],
         "kernel": r["launches"][0]["kernel"], "time_ms": r["time_ms"],
         "max_rel_err": r["outputs"][0]["max_rel_err"]}
        for r in dyn["runs"]]
    results["static"][target] = []
    for m in (1, 16, 128, 2048):
        s = json.load(open(os.path.join(out, f"static-{target}-{m}.json")))
        results["static"][target].append(
            {"m": m, "status": s["status"], "time_ms": s["time_ms"],
             "kernel": s["launches"][0]["kernel"],
             "cublas_ms": s.get("cublas", {}).get("time_ms")})
with open(os.path.join(here, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
    f.write("\n")

lines = [f"Device: {device}", "",
         "| target | M | dynamic (us) | static (us) | static / dynamic | cuBLAS (us) | cuBLAS / dynamic |",
         "|---|---:|---:|---:|---:|---:|---:|"]
for target in ("sm_90", "sm_90a"):
    dyn = {r["m"]: r for r in results["dynamic"][target]}
    for s in results["static"][target]:
        d = dyn[s["m"]]
        cub = s["cublas_ms"]
        lines.append(
            f"| {target} | {s['m']} | {d['time_ms'] * 1e3:.1f} | {s['time_ms'] * 1e3:.1f} "
            f"| {s['time_ms'] / d['time_ms']:.3f} | {cub * 1e3:.1f} | {cub / d['time_ms']:.3f} |")
lines += ["", "Every size run (verified against the reference kernels at each M):", "",
          "| target | M | status | bucket kernel | time (us) | max rel err |",
          "|---|---:|---|---|---:|---:|"]
for target in ("sm_90", "sm_90a"):
    for r in results["dynamic"][target]:
        lines.append(f"| {target} | {r['m']} | {r['status']} | {r['kernel']} "
                     f"| {r['time_ms'] * 1e3:.1f} | {r['max_rel_err']:.2e} |")
with open(os.path.join(here, "table.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
