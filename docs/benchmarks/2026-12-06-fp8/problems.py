"""FP8 benchmark problems: torch._scaled_mm's computation written in linalg.

Each problem is x [M, K] times W [N, K]^T in FP8 (weights stored [N, K], as
serving stacks keep them), accumulated in f32; a "scaled" problem multiplies
by the per-tensor scales of x and W (0-d f32 tensors) and rounds to bf16, as
``torch._scaled_mm(x, w.t(), scale_a, scale_b, out_dtype=torch.bfloat16)``
does; a plain one returns the f32 accumulator (the cuBLASLt-verified case).

    python3 problems.py OUT_DIR     # writes OUT_DIR/<name>.mlir
"""

import os
import sys

FORMATS = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}

# name, M, N, K, format, scaled
PROBLEMS = [
    ("square_e4m3", 4096, 4096, 4096, "e4m3", True),
    ("mlp_up_e4m3", 4096, 11008, 4096, "e4m3", True),
    ("decode_e4m3", 16, 11008, 4096, "e4m3", True),
    ("square_e5m2", 4096, 4096, 4096, "e5m2", True),
    ("plain_e4m3", 4096, 4096, 4096, "e4m3", False),
]


def mlir(name, m, n, k, fmt, scaled):
    t = FORMATS[fmt]
    acc = f"tensor<{m}x{n}xf32>"
    head = (f"func.func @{name}(%x: tensor<{m}x{k}x{t}>, %w: tensor<{n}x{k}x{t}>"
            + (", %sx: tensor<f32>, %sw: tensor<f32>" if scaled else "")
            + f") -> tensor<{m}x{n}x{'bf16' if scaled else 'f32'}> {{\n")
    body = f"""  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {acc}
  %f = linalg.fill ins(%zero : f32) outs(%e : {acc}) -> {acc}
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<{m}x{k}x{t}>, tensor<{n}x{k}x{t}>) outs(%f : {acc}) -> {acc}
"""
    if not scaled:
        return head + body + f"  return %c : {acc}\n}}\n"
    out = f"tensor<{m}x{n}xbf16>"
    return head + body + f"""  %o = tensor.empty() : {out}
  %y = linalg.generic {{indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}}
      ins(%c, %sx, %sw : {acc}, tensor<f32>, tensor<f32>) outs(%o : {out}) {{
  ^bb0(%v: f32, %a: f32, %b: f32, %unused: bf16):
    %s = arith.mulf %a, %b : f32
    %r = arith.mulf %v, %s : f32
    %h = arith.truncf %r : f32 to bf16
    linalg.yield %h : bf16
  }} -> {out}
  return %y : {out}
}}
"""


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for p in PROBLEMS:
        with open(os.path.join(out, p[0] + ".mlir"), "w") as f:
            f.write(mlir(*p))
