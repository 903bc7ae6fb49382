#!/usr/bin/env python3
"""Tables the H100 run's first round from the round-2 prompts it recorded
(h100-round2-prompts/<dispatch>.md: the "Scripts tried" table the tuner
showed the model, times measured on the GPU by vibegemm-run). Per dispatch:
the built-in schedule's time, the best built-in variant's, the best LLM
candidate's, and their ratio. The prompts print three decimals of a
millisecond (the tuner prints four significant digits since d26b7d1).
Usage: gpu-round1.py [DIR]   (default: h100-round2-prompts beside this file)"""
import glob
import math
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "h100-round2-prompts")
row = re.compile(r"^\| (\d+) \| (builtin|builtin-variant|llm|database) \| (\d+) \| (\S+) \| ([0-9.]+) ms \|")
print("| dispatch | problem | built-in ms | best variant ms | best LLM ms (round 1) | built-in / best LLM |")
print("|---|---|---:|---:|---:|---:|")
ratios = []
for path in sorted(glob.glob(os.path.join(folder, "*.md"))):
    text = open(path).read()
    problem = re.search(r"^(C\[\S+\] = A\[\S+\] \* B\[\S+\])", text, re.M).group(1)
    times = {}
    for m in map(row.match, text.splitlines()):
        if m and m.group(4) == "ok":
            times.setdefault(m.group(2), []).append(float(m.group(5)))
    builtin = min(times.get("builtin", [math.nan]))
    variant = min(times.get("builtin-variant", [math.nan]))
    llm = min(times.get("llm", [math.nan]))
    ratio = builtin / llm
    ratios.append(ratio)
    print("| %s | %s | %.3f | %s | %.3f | %.2f |" % (
        os.path.basename(path)[:-3], problem, builtin,
        "-" if math.isnan(variant) else "%.3f" % variant, llm, ratio))
geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
print("\nGeometric mean of built-in / best LLM over %d dispatches: %.3f" % (len(ratios), geo))
