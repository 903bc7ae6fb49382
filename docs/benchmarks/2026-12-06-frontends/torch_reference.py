#!/usr/bin/env python3
"""Eager PyTorch for the two frontend benchmarks, timed as vibegemm-run
times plans: warm-up, L2 flushed before every run, median of CUDA-event
times. f32 without TF32, as the torch-mlir input is f32.

Usage: torch_reference.py > torch.json
"""
import json
import statistics

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device=dev)


def timed(fn, runs=50, warmup=10):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def rand(*shape):
    return (torch.rand(*shape, device=dev) - 0.5) * 0.1


def gpt2_mlp(tokens=1024, hidden=768, inner=3072):
    x, res = rand(1, tokens, hidden), rand(1, tokens, hidden)
    w1, b1 = rand(hidden, inner), rand(inner)  # Conv1D: [in, out]
    w2, b2 = rand(inner, hidden), rand(hidden)

    def fn():
        h = F.gelu(x @ w1 + b1, approximate="tanh")
        return res + (h @ w2 + b2)

    return fn, 2.0 * tokens * hidden * inner * 2


def bert_ffn(tokens=512, hidden=768, inner=3072):
    x = rand(1, tokens, hidden)
    wi, bi = rand(inner, hidden), rand(inner)  # nn.Linear: [out, in]
    wo, bo = rand(hidden, inner), rand(hidden)
    g, b = rand(hidden) + 1.0, rand(hidden)

    def fn():
        h = F.gelu(F.linear(x, wi, bi))
        return F.layer_norm(F.linear(h, wo, bo) + x, (hidden,), g, b, eps=1e-12)

    return fn, 2.0 * tokens * hidden * inner * 2


results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
for name, make in [("gpt2-mlp", gpt2_mlp), ("bert-ffn", bert_ffn)]:
    fn, flops = make()
    ms = timed(fn)
    results[name] = {"eager_ms": ms, "eager_tflops": flops / ms / 1e9}
print(json.dumps(results, indent=1))
