#!/usr/bin/env python3
"""A stand-in for vibegemm-run in tests without a GPU: answers --probe, and
for a plan writes an "ok" result with a fixed time to --result-file. With
FAKE_RUNNER_SUSTAINED=1 its timing says the timed runs followed sustained
ones, as vibegemm-run's --sustain-ms does; without, it reports none."""
import json
import os
import sys

if "--probe" in sys.argv:
    print("fake GPU (test runner)")
    sys.exit(0)
result_file = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--result-file="))
timing = {"method": "cuda-events", "median_ms": 0.5}
if os.environ.get("FAKE_RUNNER_SUSTAINED") == "1":
    timing["sustained"] = "after 10 untimed runs (500 ms)"
with open(result_file, "w") as f:
    json.dump({"tool": "vibegemm-run", "version": 1, "plan": sys.argv[-1], "status": "ok",
               "time_ms": 0.5, "tflops": 1.0, "timing": timing}, f)
