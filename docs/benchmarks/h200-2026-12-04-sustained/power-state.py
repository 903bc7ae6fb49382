#!/usr/bin/env python3
"""How the number of back-to-back timed runs moves a compute-bound GEMM's time.

Runs on the GPU machine (PyTorch). cuBLAS (torch.matmul, bf16) timed the
way python/bench/torch_side.py times it (L2 read-flushed, CUDA events per
run, 5 warm-ups), with 50 runs (the suite's PyTorch columns), with 200
(about what vibegemm-run does for a 1 ms kernel), and with 50 again after
two seconds of the same GEMM back to back. The SM clock and power are
sampled by nvidia-smi meanwhile; each line gives their medians.

    python3 docs/benchmarks/h200-2026-12-04-sustained/power-state.py [OUT_CSV]
"""
import statistics
import subprocess
import sys
import time

import torch

SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096)]


def timed(run, iters, flush, sink):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        torch.sum(flush, dim=(0,), out=sink[0])
        starts[i].record()
        run()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def smi_window(log, t0, t1):
    """Median SM clock (MHz) and power (W) of the samples between t0 and t1."""
    clocks, watts = [], []
    for stamp, clock, power in log:
        if t0 <= stamp <= t1:
            clocks.append(clock)
            watts.append(power)
    if not clocks:
        return "no samples"
    return f"{statistics.median(clocks):.0f} MHz {statistics.median(watts):.0f} W ({len(clocks)} samples)"


def read_smi(path):
    log = []
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        try:
            log.append((float(parts[0]), float(parts[1].split()[0]), float(parts[2].split()[0])))
        except (ValueError, IndexError):
            continue
    return log


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/power-state.csv"
    smi = subprocess.Popen(
        ["bash", "-c", "while true; do echo \"$(date +%s.%N), $(nvidia-smi --query-gpu=clocks.sm,power.draw "
         "--format=csv,noheader,nounits)\"; sleep 0.02; done"],
        stdout=open(out, "w"))
    dev = torch.device("cuda")
    flush = torch.ones(256 << 20 >> 2, dtype=torch.float32, device=dev)
    sink = torch.empty(1, dtype=torch.float32, device=dev)
    windows = []
    try:
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
            run = lambda: torch.matmul(a, b)  # noqa: E731
            time.sleep(3)  # let the clock recover from the last shape
            for label, iters, preload_s in (("50 runs", 50, 0), ("200 runs", 200, 0),
                                            ("50 runs after 2 s of load", 50, 2.0)):
                time.sleep(2)
                t_end = time.time() + preload_s
                while time.time() < t_end:
                    for _ in range(20):
                        run()
                    torch.cuda.synchronize()
                for _ in range(5):
                    run()
                torch.cuda.synchronize()
                t0 = time.time()
                times = timed(run, iters, flush, sink)
                t1 = time.time()
                windows.append((f"{m}x{n}x{k} {label}", times, t0, t1))
    finally:
        time.sleep(0.2)
        smi.terminate()
    log = read_smi(out)
    for label, times, t0, t1 in windows:
        q = max(1, len(times) // 4)
        print(f"{label}: median {statistics.median(times):.4f} ms, first quarter "
              f"{statistics.median(times[:q]):.4f}, last quarter {statistics.median(times[-q:]):.4f}; "
              f"{smi_window(log, t0, t1)}")


if __name__ == "__main__":
    main()
