"""Compiles a spread of GEMM shapes with `vibegemm-opt --llm-schedule`
(built-in scheduler, no measurement) and prints one line per problem:
`ok NAME KIND` or `FAIL NAME: first error line`. Shapes that once broke
the compiler are kept here: 1x1 outputs, batched and ragged softmax,
matrix-vector products in both orientations, misaligned rows on sm_90a,
f32 tiles too small for a warp of FFMA threads.

Usage: shape_sweep.py VIBEGEMM_OPT SRC_ROOT WORKDIR
"""
import json
import os
import subprocess
import sys

opt, src, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(src, "python", "bench"))
import problems  # noqa: E402
from problems import Problem  # noqa: E402

# (dtype, batch, M, N, K, A stored [K, M], B stored [N, K], epilogue, target)
CASES = [
    ("bf16", 1, 1, 1, 1, False, True, "none", "sm_90a"),
    ("f32", 1, 1, 1, 1, False, False, "gelu_softmax", "sm_90"),
    ("bf16", 1, 1, 1000, 4096, False, True, "none", "sm_90a"),
    ("f32", 1, 300, 1, 1001, False, False, "bias_relu", "sm_90"),
    ("bf16", 1, 77, 1001, 512, False, True, "gelu_softmax", "sm_90a"),
    ("f32", 1, 77, 1001, 512, False, True, "gelu_softmax", "sm_90"),
    ("bf16", 1, 130, 70, 4100, True, True, "none", "sm_80"),
    ("bf16", 1, 2000, 1999, 1001, True, True, "none", "sm_90a"),
    ("bf16", 5, 33, 47, 61, False, False, "none", "sm_90a"),
    ("f32", 4, 100, 200, 300, False, False, "none", "sm_90"),
    # 32x16 tiles at 4x8 per thread would be 16 threads: FFMA takes 4x4.
    ("f32", 3, 31, 16, 17, False, False, "none", "sm_90"),
]


def batched_softmax(dtype, b, m, n, k):
    """Attention scores: batch_matmul, a scale, a softmax over the rows."""
    tail = ("%r = arith.truncf %y : f32 to bf16" if dtype == "bf16"
            else "%r = arith.addf %y, %zero : f32")
    t = lambda *d: "tensor<" + "x".join(map(str, d)) + "x"  # noqa: E731
    return f"""
func.func @scores_{dtype}(%q: {t(b, m, k)}{dtype}>, %kt: {t(b, k, n)}{dtype}>) -> {t(b, m, n)}{dtype}> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t(b, m, n)}f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : {t(b, m, n)}f32>) -> {t(b, m, n)}f32>
  %s = linalg.batch_matmul ins(%q, %kt : {t(b, m, k)}{dtype}>, {t(b, k, n)}{dtype}>) outs(%f : {t(b, m, n)}f32>) -> {t(b, m, n)}f32>
  %o = tensor.empty() : {t(b, m, n)}{dtype}>
  %x = linalg.generic {{indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%s : {t(b, m, n)}f32>) outs(%o : {t(b, m, n)}{dtype}>) {{
  ^bb0(%v: f32, %out: {dtype}):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %v, %c : f32
    {tail}
    linalg.yield %r : {dtype}
  }} -> {t(b, m, n)}{dtype}>
  %so = tensor.empty() : {t(b, m, n)}{dtype}>
  %sm = linalg.softmax dimension(2) ins(%x : {t(b, m, n)}{dtype}>) outs(%so : {t(b, m, n)}{dtype}>) -> {t(b, m, n)}{dtype}>
  return %sm : {t(b, m, n)}{dtype}>
}}
"""


inputs = []
for dtype, b, m, n, k, ta, tb, epi, target in CASES:
    p = Problem(base=f"s{b}x{m}x{n}x{k}_{'t' if ta else 'n'}{'t' if tb else 'n'}_{epi}",
                level=2 if epi != "none" else 1, dtype=dtype, batch=b, m=m,
                n=n, k=k, trans_a=ta, trans_b=tb, epilogue=epi)
    inputs.append((p.name, problems.mlir(p), target))
for dtype in ("bf16", "f32"):
    inputs.append((f"scores3x77x1001x64_{dtype}",
                   batched_softmax(dtype, 3, 77, 1001, 64), "sm_90a"))

failed = 0
for name, text, target in inputs:
    src_path = os.path.join(work, name + ".mlir")
    art = os.path.join(work, name)
    with open(src_path, "w") as f:
        f.write(text)
    run = subprocess.run(
        [opt, src_path, f"--llm-schedule=artifacts-dir={art} measure=off "
         f"target={target}", "-o", os.devnull],
        capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        failed += 1
        first = next((l for l in run.stderr.splitlines() if "error" in l),
                     run.stderr.strip().splitlines()[-1:] or ["no output"])
        print(f"FAIL {name}: rc {run.returncode}: {first}")
        continue
    with open(os.path.join(art, "report.json")) as f:
        report = json.load(f)
    kinds = [d["builtin_schedule"]["kind"] for d in report["dispatches"]]
    print(f"ok {name} {','.join(kinds)}")
print(f"{len(inputs) - failed} of {len(inputs)} compiled")
