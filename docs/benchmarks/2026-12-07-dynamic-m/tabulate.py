#!/usr/bin/env python3
"""Condenses run-gpu.sh's output directory into results.json and table.md.

Usage: tabulate.py OUT_DIR [DEST]   (writes results.json and table.md into
DEST, this directory by default)
"""
import json
import os
import sys

out = sys.argv[1]
here = (sys.argv[2] if len(sys.argv) > 2
        else os.path.dirname(os.path.abspath(__file__)))
device = open(os.path.join(out, "device.txt")).read().strip()
names = {"up": "Llama-2-7B up projection, N 11008, K 4096",
         "kv": "Qwen2.5-7B k_proj, N 512, K 3584"}
targets = ("sm_90", "sm_90a")
results = {"device": device, "modules": {}}
for name in names:
    module = results["modules"][name] = {"dynamic": {}, "static": {}}
    for target in targets:
        dyn = json.load(open(os.path.join(out, f"{name}-dyn-{target}.json")))
        module["dynamic"][target] = [
            {"m": r["sizes"]["M"], "status": r["status"],
             "reference": r["reference"], "kernel": r["launches"][0]["kernel"],
             "time_ms": r["time_ms"],
             "max_rel_err": r["outputs"][0]["max_rel_err"]}
            for r in dyn["runs"]]
        module["static"][target] = []
        for m in (1, 16, 128, 2048):
            s = json.load(open(os.path.join(out, f"{name}-static-{target}-{m}.json")))
            module["static"][target].append(
                {"m": m, "status": s["status"], "time_ms": s["time_ms"],
                 "kernel": s["launches"][0]["kernel"],
                 "cublas_ms": s.get("cublas", {}).get("time_ms")})
with open(os.path.join(here, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
    f.write("\n")

lines = [f"Device: {device}", "",
         "| module | target | M | dynamic (us) | static (us) | static / dynamic | cuBLAS (us) | cuBLAS / dynamic |",
         "|---|---|---:|---:|---:|---:|---:|---:|"]
for name in names:
    module = results["modules"][name]
    for target in targets:
        dyn = {r["m"]: r for r in module["dynamic"][target]}
        for s in module["static"][target]:
            d = dyn[s["m"]]
            cub = s["cublas_ms"]
            lines.append(
                f"| {name} | {target} | {s['m']} | {d['time_ms'] * 1e3:.1f} "
                f"| {s['time_ms'] * 1e3:.1f} | {s['time_ms'] / d['time_ms']:.3f} "
                f"| {cub * 1e3:.1f} | {cub / d['time_ms']:.3f} |")
lines += ["", "Modules: " + "; ".join(f"{k}: {v}" for k, v in names.items()), "",
          "Every size run (verified against the reference kernels at each M):", "",
          "| module | target | M | status | bucket kernel | time (us) | max rel err |",
          "|---|---|---:|---|---|---:|---:|"]
for name in names:
    for target in targets:
        for r in results["modules"][name]["dynamic"][target]:
            lines.append(f"| {name} | {target} | {r['m']} | {r['status']} "
                         f"| {r['kernel']} | {r['time_ms'] * 1e3:.1f} "
                         f"| {r['max_rel_err']:.2e} |")
with open(os.path.join(here, "table.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
