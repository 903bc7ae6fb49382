#!/usr/bin/env python3
"""A stand-in for vibegemm-run in tests without a GPU: answers --probe, and
for a plan writes an "ok" result with a fixed time (0.5 ms) to
--result-file. FAKE_RUNNER_SUSTAINED=1: its timing says the timed runs
followed sustained ones, as vibegemm-run's --sustain-ms does.
FAKE_RUNNER_FAST_GRID=G / FAKE_RUNNER_FAULT_GRID=G: a plan whose first
launch has G blocks along x takes 0.4 ms / faults. FAKE_RUNNER_FAST_CLUSTER=1:
a plan whose first launch runs in clusters takes 0.3 ms.
FAKE_RUNNER_FAST_TMA_STORE=1: a plan whose first kernel stores with TMA
(cp.async.bulk.tensor from shared to global) takes 0.2 ms.
FAKE_RUNNER_CUBLAS_MS=T: a run asked to time cuBLAS (--compare=cublas)
reports cuBLAS at T ms.
--list-devices: FAKE_RUNNER_DEVICES (default 1) fake GPUs of one model.
FAKE_RUNNER_SLEEP=S: a run takes S seconds of wall time. FAKE_RUNNER_LOG=F:
each run appends its CUDA_VISIBLE_DEVICES, start, end and whether it was
asked to time cuBLAS to F."""
import json
import os
import sys
import time

if "--probe" in sys.argv:
    print("fake GPU (test runner)")
    sys.exit(0)
if "--list-devices" in sys.argv:
    for _ in range(int(os.environ.get("FAKE_RUNNER_DEVICES", "1"))):
        print("fake GPU (test runner)")
    sys.exit(0)
start = time.time()
time.sleep(float(os.environ.get("FAKE_RUNNER_SLEEP", "0")))
result_file = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--result-file="))
plan_path = sys.argv[-1]
with open(plan_path) as f:
    launch = json.load(f)["launches"][0]
grid_x = str(launch["grid"][0])
time_ms = 0.4 if grid_x == os.environ.get("FAKE_RUNNER_FAST_GRID") else 0.5
if "cluster" in launch and os.environ.get("FAKE_RUNNER_FAST_CLUSTER") == "1":
    time_ms = 0.3
if os.environ.get("FAKE_RUNNER_FAST_TMA_STORE") == "1":
    with open(os.path.join(os.path.dirname(plan_path), launch["ptx"])) as f:
        if ".global.shared::cta" in f.read():
            time_ms = 0.2
result = {"tool": "vibegemm-run", "version": 1, "plan": plan_path, "status": "ok",
          "time_ms": time_ms, "tflops": 1.0, "timing": {"method": "cuda-events"}}
if os.environ.get("FAKE_RUNNER_CUBLAS_MS") and "--compare=cublas" in sys.argv:
    result["cublas"] = {"time_ms": float(os.environ["FAKE_RUNNER_CUBLAS_MS"])}
if os.environ.get("FAKE_RUNNER_SUSTAINED") == "1":
    result["timing"]["sustained"] = "after 10 untimed runs (500 ms)"
if grid_x == os.environ.get("FAKE_RUNNER_FAULT_GRID"):
    result = {"tool": "vibegemm-run", "version": 1, "plan": plan_path, "status": "fault",
              "diagnostic": "CUDA_ERROR_ILLEGAL_ADDRESS (fake)"}
with open(result_file, "w") as f:
    json.dump(result, f)
if os.environ.get("FAKE_RUNNER_LOG"):
    with open(os.environ["FAKE_RUNNER_LOG"], "a") as log:
        log.write(json.dumps({"device": os.environ.get("CUDA_VISIBLE_DEVICES"),
                              "start": start, "end": time.time(),
                              "cublas": "--compare=cublas" in sys.argv}) + "\n")
