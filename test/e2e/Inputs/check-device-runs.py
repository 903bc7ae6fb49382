"""Summarises fake-runner.py's FAKE_RUNNER_LOG: how many runs, which
CUDA_VISIBLE_DEVICES they got, and how many pairs overlapped in time on one
device. Usage: check-device-runs.py LOG."""
import json
import sys

runs = [json.loads(line) for line in open(sys.argv[1])]
by_device = {}
for r in runs:
    by_device.setdefault(r["device"], []).append((r["start"], r["end"]))
overlaps = 0
for spans in by_device.values():
    spans.sort()
    overlaps += sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1])
print("runs", len(runs))
print("devices", ",".join(sorted(str(d) for d in by_device)))
print("overlaps on one device", overlaps)
