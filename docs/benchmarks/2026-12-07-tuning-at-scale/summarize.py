#!/usr/bin/env python3
"""Tables run-cpu.sh's runs (in the order of OUT/wall.txt): wall time,
requests, prompt tokens per tuned dispatch (bytes / 4, as
replay-provider.py estimates them) and the share a provider's prefix cache
would serve (system prompts sent before), the status of every LLM
candidate, and whether each run ends every dispatch with the same winner and
the same best unverified script as the first run. Writes OUT/results.json;
prints the Markdown table. Usage: summarize.py OUT"""
import collections
import json
import os
import sys

out = sys.argv[1]
order, wall = [], {}
for line in open(os.path.join(out, "wall.txt")):
    run, seconds = line.split()
    order.append(run)
    wall[run] = float(seconds)
runs = {}
for run in order:
    report = json.load(open(os.path.join(out, run, "report.json")))
    requests = [json.loads(l) for l in open(os.path.join(out, run + ".requests.jsonl"))]
    seen, cacheable = set(), 0
    for r in sorted(requests, key=lambda r: r["start"]):
        if r["system_sha256"] in seen:
            cacheable += r["system_bytes"] // 4
        seen.add(r["system_sha256"])
    per_dispatch = collections.defaultdict(int)
    for r in requests:
        per_dispatch[r["dispatch"]] += (r["system_bytes"] + r["user_bytes"]) // 4
    outcome, statuses = {}, collections.Counter()
    for d in report["dispatches"]:
        c = d["candidates"]
        best = d.get("unverified_best")
        outcome[d["signature"]] = [c[d["winner"]].get("script_hash"),
                                   c[best].get("script_hash") if best is not None else None]
        if "tuned_as" not in d:
            statuses.update(x["status"] for x in c if x["source"] == "llm")
    prompt = sum(per_dispatch.values())
    runs[run] = {
        "wall_s": wall[run],
        "requests": len(requests),
        "dispatches_asked": len(per_dispatch),
        "prompt_tokens": prompt,
        "prefix_cacheable_tokens": cacheable,
        "mean_prompt_tokens_per_dispatch": prompt // len(per_dispatch),
        "max_prompt_tokens_per_dispatch": max(per_dispatch.values()),
        "mean_system_bytes": sum(r["system_bytes"] for r in requests) // len(requests),
        "mean_user_bytes": sum(r["user_bytes"] for r in requests) // len(requests),
        "distinct_system_prompts": len(set(r["system_sha256"] for r in requests)),
        "llm_statuses": dict(statuses),
        "outcome": outcome,
    }
json.dump(runs, open(os.path.join(out, "results.json"), "w"), indent=1)
first = order[0]
print("| run | wall (s) | x first | requests | dispatches asked | distinct system prompts | prompt tokens / dispatch (mean, max) | prefix-cacheable | system / user bytes a request | LLM candidates' statuses | same winners as %s |" % first)
print("|---|---|---|---|---|---|---|---|---|---|---|")
for run in order:
    r = runs[run]
    st = ", ".join("%s %d" % kv for kv in sorted(r["llm_statuses"].items()))
    print("| %s | %.0f | %.3f | %d | %d | %d | %d, %d | %d%% | %d / %d | %s | %s |" % (
        run, r["wall_s"], r["wall_s"] / runs[first]["wall_s"], r["requests"],
        r["dispatches_asked"], r["distinct_system_prompts"],
        r["mean_prompt_tokens_per_dispatch"], r["max_prompt_tokens_per_dispatch"],
        100 * r["prefix_cacheable_tokens"] // r["prompt_tokens"],
        r["mean_system_bytes"], r["mean_user_bytes"], st,
        "yes" if r["outcome"] == runs[first]["outcome"] else "NO"))
