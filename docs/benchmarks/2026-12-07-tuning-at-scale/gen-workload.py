#!/usr/bin/env python3
"""Writes qwen2.5-7b-linears.mlir: the linear layers of Qwen2.5-7B (hidden
3584, intermediate 18944, 28 query heads and 4 KV heads of 128, vocabulary
152064) at M = 1, 32, 256 and 4096 tokens, bf16 operands with f32
accumulation and a bf16 result, weights stored [N, K] as nn.Linear keeps
them. One function per M, one GEMM per projection: 8 per M, 32 in all, of
which 20 are distinct problems (k/v, q/o and gate/up share shapes).
Usage: gen-workload.py > qwen2.5-7b-linears.mlir"""

HIDDEN, INTER, KV, VOCAB = 3584, 18944, 4 * 128, 152064
LAYERS = [("q", HIDDEN, HIDDEN), ("k", KV, HIDDEN), ("v", KV, HIDDEN),
          ("o", HIDDEN, HIDDEN), ("gate", INTER, HIDDEN), ("up", INTER, HIDDEN),
          ("down", HIDDEN, INTER), ("lm_head", VOCAB, HIDDEN)]

print("// The linear layers of Qwen2.5-7B at M = 1, 32, 256, 4096 (bf16, weights")
print("// [N, K]); written by gen-workload.py beside this file.")
print("#mA = affine_map<(m, n, k) -> (m, k)>")
print("#mB = affine_map<(m, n, k) -> (n, k)>")
print("#mC = affine_map<(m, n, k) -> (m, n)>")
print("#id = affine_map<(m, n) -> (m, n)>")
for m in (1, 32, 256, 4096):
    args = ", ".join("%%x_%s: tensor<%dx%dxbf16>, %%w_%s: tensor<%dx%dxbf16>"
                     % (name, m, k, name, n, k) for name, n, k in LAYERS)
    results = ", ".join("tensor<%dx%dxbf16>" % (m, n) for _, n, _ in LAYERS)
    print("func.func @qwen_m%d(%s) -> (%s) {" % (m, args, results))
    print("  %zero = arith.constant 0.0 : f32")
    names = []
    for name, n, k in LAYERS:
        acc, out = "tensor<%dx%dxf32>" % (m, n), "tensor<%dx%dxbf16>" % (m, n)
        print("  %%i_%s = tensor.empty() : %s" % (name, acc))
        print("  %%f_%s = linalg.fill ins(%%zero : f32) outs(%%i_%s : %s) -> %s"
              % (name, name, acc, acc))
        print("  %%mm_%s = linalg.matmul indexing_maps = [#mA, #mB, #mC] "
              "ins(%%x_%s, %%w_%s : tensor<%dx%dxbf16>, tensor<%dx%dxbf16>) "
              "outs(%%f_%s : %s) -> %s" % (name, name, name, m, k, n, k, name,
                                          acc, acc))
        print("  %%o_%s = tensor.empty() : %s" % (name, out))
        print("  %%y_%s = linalg.generic {indexing_maps = [#id, #id], "
              "iterator_types = [\"parallel\", \"parallel\"]} ins(%%mm_%s : %s) "
              "outs(%%o_%s : %s) {" % (name, name, acc, name, out))
        print("  ^bb0(%v: f32, %o: bf16):")
        print("    %r = arith.truncf %v : f32 to bf16")
        print("    linalg.yield %r : bf16")
        print("  } -> %s" % out)
        names.append("%%y_%s" % name)
    print("  return %s : %s" % (", ".join(names), results))
    print("}")
