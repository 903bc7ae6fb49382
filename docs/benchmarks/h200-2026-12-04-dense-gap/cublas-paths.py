#!/usr/bin/env python3
"""Which cuBLAS path PyTorch's cuBLAS column takes, and how fast each is.

Runs on the GPU machine (PyTorch), with the suite's timing
(python/bench/torch_side.time_fn: warm-up, half a second of sustained
runs, L2 read-flushed, events per run). For each shape, torch.matmul in
bf16 under each of PyTorch's BLAS backends ("cublas": cublasGemmEx;
"cublaslt": cublasLt with heuristics and a workspace), so vibegemm-run's
own cuBLAS call (cublasGemmStridedBatchedEx, no workspace: 0.190 ms on
4096^3 where PyTorch took 0.175 in the same lease,
docs/benchmarks/h200-2026-12-04-sustained) can be matched to the faster.

    python3 docs/benchmarks/h200-2026-12-04-dense-gap/cublas-paths.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "python", "bench"))
import torch_side  # noqa: E402

SHAPES = [(4096, 4096, 4096), (2048, 4096, 8192), (8192, 8192, 8192), (16, 11008, 4096)]


def main():
    dev = torch.device("cuda")
    flush = torch.zeros(torch_side.flush_bytes() // 4, dtype=torch.float32, device=dev)
    print("default backend:", torch.backends.cuda.preferred_blas_library())
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        line = f"{m}x{n}x{k}:"
        for backend in ("cublas", "cublaslt"):
            torch.backends.cuda.preferred_blas_library(backend)
            timing = torch_side.time_fn(lambda: torch.matmul(a, b), 50, 5, flush)
            line += f" {backend} {timing['median_ms']:.4f} ms"
        print(line, flush=True)


if __name__ == "__main__":
    main()
