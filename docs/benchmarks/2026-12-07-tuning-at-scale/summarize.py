#!/usr/bin/env python3
"""Tables run-cpu.sh's runs (in the order of OUT/wall.txt): wall time,
requests, prompt tokens per tuned dispatch (bytes / 4, as
replay-provider.py estimates them) and the share a provider's prefix cache
would serve (system prompts sent before), the status of every LLM
candidate, and whether each run ends every dispatch with the same winner and
the same best unverified script as the first run that was answered from
the same replies (REPLIES in OUT/wall.txt's third column). Writes OUT/results.json;
prints the Markdown table. Usage: summarize.py OUT"""
import collections
import json
import os
import sys

out = sys.argv[1]
order, wall = [], {}
replies = {}
for line in open(os.path.join(out, "wall.txt")):
    run, seconds, *rest = line.split()
    order.append(run)
    wall[run] = float(seconds)
    replies[run] = rest[0] if rest else "replies"
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
        # A twin's script names the twin: compare the first of a signature.
        if d["signature"] in outcome:
            continue
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
print("| run | replies | wall (s) | x %s | requests | dispatches asked | distinct system prompts | prompt tokens / dispatch (mean, max) | prefix-cacheable | system / user bytes a request | LLM candidates' statuses | same winners as the first run with its replies |" % first)
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for run in order:
    r = runs[run]
    base = next(o for o in order if replies[o] == replies[run])
    st = ", ".join("%s %d" % kv for kv in sorted(r["llm_statuses"].items()))
    print("| %s | %s | %.0f | %.3f | %d | %d | %d | %d, %d | %d%% | %d / %d | %s | %s |" % (
        run, replies[run], r["wall_s"], r["wall_s"] / runs[first]["wall_s"], r["requests"],
        r["dispatches_asked"], r["distinct_system_prompts"],
        r["mean_prompt_tokens_per_dispatch"], r["max_prompt_tokens_per_dispatch"],
        100 * r["prefix_cacheable_tokens"] // r["prompt_tokens"],
        r["mean_system_bytes"], r["mean_user_bytes"], st,
        "(first)" if base == run else
        "yes" if r["outcome"] == runs[base]["outcome"] else "NO"))
