#!/usr/bin/env python3
"""Tables run-cpu.sh's before and after runs: wall time, requests, prompt
tokens per tuned dispatch (bytes / 4, as replay-provider.py estimates them)
and how many of them a prefix cache would have served, and whether every
dispatch ends with the same winner and the same best unverified script.
Writes OUT/results.json; prints the Markdown table. Usage: summarize.py OUT"""
import json
import os
import sys

out = sys.argv[1]
wall = dict(line.split() for line in open(os.path.join(out, "wall.txt")))
runs = {}
for run in ("before", "after"):
    path = os.path.join(out, run, "report.json")
    if not os.path.exists(path):
        continue
    report = json.load(open(path))
    requests = [json.loads(l) for l in open(os.path.join(out, run + ".requests.jsonl"))]
    per_dispatch = {}
    seen, cacheable = set(), 0
    for r in sorted(requests, key=lambda r: r["start"]):
        if r["system_sha256"] in seen:
            cacheable += r["system_bytes"] // 4
        seen.add(r["system_sha256"])
    for r in requests:
        d = per_dispatch.setdefault(r["dispatch"], {"requests": 0, "prompt": 0})
        d["requests"] += 1
        d["prompt"] += (r["system_bytes"] + r["user_bytes"]) // 4
    outcome = {}
    for d in report["dispatches"]:
        c = d["candidates"]
        best = d.get("unverified_best")
        outcome[d["signature"]] = (c[d["winner"]].get("script_hash"),
                                   c[best].get("script_hash") if best is not None else None)
    runs[run] = {
        "wall_s": float(wall[run]),
        "requests": len(requests),
        "dispatches_asked": len(per_dispatch),
        "prompt_tokens": sum((r["system_bytes"] + r["user_bytes"]) // 4 for r in requests),
        "prefix_cacheable_tokens": cacheable,
        "max_prompt_tokens_per_dispatch": max(d["prompt"] for d in per_dispatch.values()),
        "mean_prompt_tokens_per_dispatch": sum(d["prompt"] for d in per_dispatch.values()) // len(per_dispatch),
        "mean_system_bytes": sum(r["system_bytes"] for r in requests) // len(requests),
        "mean_user_bytes": sum(r["user_bytes"] for r in requests) // len(requests),
        "distinct_system_prompts": len(set(r["system_sha256"] for r in requests)),
        "outcome": outcome,
    }
json.dump(runs, open(os.path.join(out, "results.json"), "w"), indent=1, default=list)
print("| run | wall (s) | requests | dispatches asked | distinct system prompts | prompt tokens / dispatch (mean, max) | share a prefix cache serves | system / user bytes per request |")
print("|---|---|---|---|---|---|---|---|")
for run, r in runs.items():
    share = "%d%%" % (100 * r["prefix_cacheable_tokens"] / r["prompt_tokens"])
    print("| %s | %.0f | %d | %d | %d | %d, %d | %s | %d / %d |" % (
        run, r["wall_s"], r["requests"], r["dispatches_asked"], r["distinct_system_prompts"],
        r["mean_prompt_tokens_per_dispatch"], r["max_prompt_tokens_per_dispatch"], share,
        r["mean_system_bytes"], r["mean_user_bytes"]))
if len(runs) == 2:
    same = runs["before"]["outcome"] == runs["after"]["outcome"]
    print()
    print("Same winner and same best unverified script for every signature: %s" % ("yes" if same else "NO"))
    print("After / before wall time: %.3f" % (runs["after"]["wall_s"] / runs["before"]["wall_s"]))
