#!/usr/bin/env python3
"""How the L2 flush between timed runs moves a memory-bound GEMM's time.

Runs on the GPU machine (PyTorch). For each shape, cuBLAS (torch.matmul,
bf16) timed with CUDA events per run, three ways: no flush (L2 warm with
what the last run left), a dirty flush (memset of 2x L2 before each run:
what vibegemm-run and most harnesses do; the dirty lines are written back
while the next kernel runs), and a clean flush (the same memset, then a
read of another 2x L2 buffer, so L2 holds only clean lines of neither
operand when the kernel starts).

    python3 docs/benchmarks/h200-2026-12-04-flush/flush-effect.py
"""
import torch

SHAPES = [  # (M, N, K, B stored [N, K])
    (16, 11008, 4096, True),
    (128, 128, 65536, False),
    (256, 1, 131072, False),
    (4096, 4096, 4096, False),
]


def main():
    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    dirty = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
    clean = torch.ones(2 * l2 // 4, dtype=torch.float32, device=dev)
    sink = torch.empty(1, dtype=torch.float32, device=dev)  # sink[0]: a 0-d view
    for m, n, k, trans_b in SHAPES:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn((n, k) if trans_b else (k, n), device=dev, dtype=torch.bfloat16)
        run = (lambda: torch.matmul(a, b.t())) if trans_b else (lambda: torch.matmul(a, b))
        for _ in range(10):
            run()
        line = f"{m}x{n}x{k}:"
        for mode in ("none", "dirty", "clean"):
            times = []
            for i in range(200):
                if mode != "none":
                    dirty.fill_(i & 0xFF)
                if mode == "clean":
                    torch.sum(clean, dim=(0,), out=sink[0])
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                run()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) * 1000)
            times.sort()
            line += f"  {mode} {times[len(times) // 2]:.1f} us"
        bytes_moved = 2 * (m * k + k * n + m * n)
        line += f"  (floor at 4.0 TB/s: {bytes_moved / 4.0e12 * 1e6:.1f} us)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
