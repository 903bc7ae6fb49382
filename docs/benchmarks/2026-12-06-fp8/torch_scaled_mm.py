"""Times torch._scaled_mm (cuBLASLt's FP8 GEMM) on problems.py's shapes.

Each problem: x [M, K] and W [N, K] in FP8, scale_a and scale_b 0-d f32,
out bf16 (scaled) or f32 (plain); both accumulation modes, since cuBLASLt's
default promotes the f32 partial sums periodically and use_fast_accum=True
does not (as vibegemm's wgmma kernel does not). CUDA-event medians over 50
runs with L2 flushed before each, after 300 ms of sustained runs; JSON on
stdout.
"""

import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from problems import PROBLEMS  # noqa: E402

DT = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def time_ms(fn, flush, iters=50):
    for _ in range(5):
        fn()
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        flush.sum()
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        flush.sum()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def main():
    flush = torch.zeros(2 * 64 * 2**20 // 4, device="cuda")
    rows = []
    for name, m, n, k, fmt, scaled in PROBLEMS:
        g = torch.Generator(device="cuda").manual_seed(7)
        x = (torch.rand(m, k, device="cuda", generator=g) - 0.5).to(DT[fmt])
        w = (torch.rand(n, k, device="cuda", generator=g) - 0.5).to(DT[fmt])
        sa = torch.tensor(0.5, device="cuda")
        sb = torch.tensor(0.25, device="cuda")
        out = torch.bfloat16 if scaled else torch.float32
        row = {"name": name, "m": m, "n": n, "k": k, "format": fmt}
        for fast in (False, True):
            key = "scaled_mm_fast_accum" if fast else "scaled_mm"
            try:
                fn = lambda: torch._scaled_mm(x, w.t(), sa, sb, out_dtype=out,
                                              use_fast_accum=fast)
                ms = time_ms(fn, flush)
                row[key] = {"time_ms": ms,
                            "tflops": 2 * m * n * k / (ms * 1e-3) / 1e12}
            except Exception as e:  # report, keep going
                row[key] = {"error": f"{type(e).__name__}: {e}"[:300]}
        rows.append(row)
    json.dump({"device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "rows": rows}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
