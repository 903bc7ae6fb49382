#!/usr/bin/env python3
"""Condenses run-gpu.sh's output directory into results.json and table.md.

Usage: tabulate.py OUT_DIR [DEST]   (DEST: this directory by default)
"""
import json
import os
import sys

out = sys.argv[1]
here = (sys.argv[2] if len(sys.argv) > 2
        else os.path.dirname(os.path.abspath(__file__)))


def runs(path):
    data = json.load(open(os.path.join(out, path)))
    return data.get("runs", [data])


def row(run):
    return {"sizes": run.get("sizes"), "status": run["status"],
            "reference": run.get("reference"),
            "time_us": round(run["time_ms"] * 1000, 2) if run.get("time_ms") else None,
            "kernels": [l["kernel"] for l in run.get("launches", [])]}


results = {"device": open(os.path.join(out, "device.txt")).read().strip(),
           "sweeps": {}, "row_sum_4096": {}}
lines = ["Device: " + results["device"], "",
         "Every sized run, verified against the reference kernels:", "",
         "| sweep | target | sizes | status | time (us) |",
         "|---|---|---|---|---:|"]
for sweep in ("bert", "tanh", "rowsum"):
    for target in ("sm_90", "sm_90a"):
        rows = [row(r) for r in runs(f"{sweep}-{target}.json")]
        results["sweeps"][f"{sweep}-{target}"] = rows
        for r in rows:
            sizes = " ".join(f"{k}={v}" for k, v in sorted(r["sizes"].items()))
            lines.append(f"| {sweep} | {target} | {sizes} | {r['status']} | {r['time_us']} |")
lines += ["", "Row sum over [M, 4096] (keepdim), run-time M against M fixed:", "",
          "| target | M | run-time M (us) | fixed M (us) | fixed / run-time | kernels (run-time; fixed) |",
          "|---|---:|---:|---:|---:|---|"]
for target in ("sm_90", "sm_90a"):
    for m in (1, 16, 2048):
        dyn = row(runs(f"wide-dyn-{target}-{m}.json")[0])
        fixed = row(runs(f"wide-static-{target}-{m}.json")[0])
        results["row_sum_4096"][f"{target}-{m}"] = {"dynamic": dyn, "static": fixed}
        lines.append(f"| {target} | {m} | {dyn['time_us']} | {fixed['time_us']} | "
                     f"{fixed['time_us'] / dyn['time_us']:.3f} | "
                     f"{len(dyn['kernels'])}; {len(fixed['kernels'])} |")
adversarial = open(os.path.join(out, "adversarial.txt")).read().strip().splitlines()
results["adversarial"] = adversarial[-1]
lines += ["", "Adversarial suite: " + adversarial[-1]]
json.dump(results, open(os.path.join(here, "results.json"), "w"), indent=1)
open(os.path.join(here, "table.md"), "w").write("\n".join(lines) + "\n")
