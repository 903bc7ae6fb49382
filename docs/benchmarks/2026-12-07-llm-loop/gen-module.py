#!/usr/bin/env python3
"""Writes loop.mlir, the dispatches the LLM loop is shown on: where the
built-in choice was weakest in the last measured runs. Four linears of
Qwen2.5-7B (weights [N, K], bf16, as in ../2026-12-07-tuning-at-scale):
decode's down projection at M = 1 and its head and up projection at
M = 32, the up projection at a 256-token prefill (aligned bf16); then
KernelBench's bias + ReLU chain and its irregular (ragged) shape, written
by python/bench/problems.py. One function per dispatch, so each is
`<function>_d0`. Usage: gen-module.py > loop.mlir"""
import os
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(root, "python", "bench"))
import problems  # noqa: E402

QWEN = [("decode_down_m1", 1, 3584, 18944), ("decode_head_m32", 32, 152064, 3584),
        ("decode_up_m32", 32, 18944, 3584), ("prefill_up_m256", 256, 18944, 3584)]
print("// The LLM loop's dispatches; written by gen-module.py beside this file.")
print("#mA = affine_map<(m, n, k) -> (m, k)>")
print("#mB = affine_map<(m, n, k) -> (n, k)>")
print("#mC = affine_map<(m, n, k) -> (m, n)>")
print("#id = affine_map<(m, n) -> (m, n)>")
for name, m, n, k in QWEN:
    acc, out = "tensor<%dx%dxf32>" % (m, n), "tensor<%dx%dxbf16>" % (m, n)
    print("func.func @%s(%%x: tensor<%dx%dxbf16>, %%w: tensor<%dx%dxbf16>) -> %s {"
          % (name, m, k, n, k, out))
    print("  %zero = arith.constant 0.0 : f32")
    print("  %%i = tensor.empty() : %s" % acc)
    print("  %%f = linalg.fill ins(%%zero : f32) outs(%%i : %s) -> %s" % (acc, acc))
    print("  %%mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%%x, %%w : "
          "tensor<%dx%dxbf16>, tensor<%dx%dxbf16>) outs(%%f : %s) -> %s"
          % (m, k, n, k, acc, acc))
    print("  %%o = tensor.empty() : %s" % out)
    print("  %%y = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
          "[\"parallel\", \"parallel\"]} ins(%%mm : %s) outs(%%o : %s) {" % (acc, out))
    print("  ^bb0(%v: f32, %o2: bf16):")
    print("    %r = arith.truncf %v : f32 to bf16")
    print("    linalg.yield %r : bf16")
    print("  } -> %s" % out)
    print("  return %%y : %s" % out)
    print("}")
# The suite's problems carry their own map aliases; keep the ones not
# printed above and rename each function.
for base, name in (("l2_bias_relu", "chain_bias_relu"), ("l1_irregular", "ragged")):
    p = next(p for p in problems.suite() if p.base == base and p.dtype == "bf16")
    for line in problems.mlir(p).splitlines():
        if line.startswith("//") or line.split(" = ")[0] in ("#mA", "#mB", "#mC", "#id"):
            continue
        print(line.replace("@%s_bf16(" % base, "@%s(" % name))
