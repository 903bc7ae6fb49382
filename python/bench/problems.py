"""The benchmark suite: KernelBench GEMM problems and their linalg MLIR.

Level 1 is KernelBench's plain GEMMs (``torch.matmul`` / ``torch.bmm``),
level 2 its ``nn.Linear`` + epilogue chains (``y = x W^T + b`` then
elementwise ops), each in f32 and bf16.  bf16 problems read bf16 operands,
accumulate in f32 and round the result to bf16 once, as cuBLAS does; every
epilogue computes in f32.  The same table drives the MLIR written here and
the PyTorch columns in ``torch_side.py``, so both sides run one problem.
"""

from __future__ import annotations

import dataclasses

DTYPES = ("f32", "bf16")
BYTES = {"f32": 4, "bf16": 2}

# Constants of the level-2 chains, shared with the PyTorch side.
SCALE = 0.5                 # KernelBench 53 and 40: scaling_factor
HARDTANH = (-2.0, 2.0)      # KernelBench 53: hardtanh_min, hardtanh_max
RSQRT2 = 0.7071067811865476  # GELU(erf): x/2 (1 + erf(x / sqrt 2))


@dataclasses.dataclass(frozen=True)
class Problem:
    """One benchmark problem at one dtype."""

    base: str           # e.g. "l1_square"; the name adds the dtype
    level: int          # KernelBench level: 1 GEMM, 2 GEMM + epilogue
    dtype: str          # "f32" or "bf16" (operands and result)
    m: int
    n: int
    k: int
    batch: int = 1      # > 1: torch.bmm / linalg.batch_matmul
    trans_a: bool = False  # A stored [K, M] (KernelBench: A.T)
    trans_b: bool = False  # B stored [N, K] (KernelBench: B.T, nn.Linear W)
    epilogue: str = "none"  # see EPILOGUES
    source: str = ""    # the KernelBench problem it follows

    @property
    def name(self):
        return f"{self.base}_{self.dtype}"

    @property
    def flops(self):
        """2·M·N·K per batch: the GEMM's work, epilogues not counted."""
        return 2 * self.batch * self.m * self.n * self.k

    @property
    def min_bytes(self):
        """Every input read once and the output written once."""
        e = BYTES[self.dtype]
        b, m, n, k = self.batch, self.m, self.n, self.k
        total = b * (m * k + k * n + m * n) * e
        if self.epilogue != "none":
            total += n * e                      # bias
        if self.epilogue == "scale_residual":
            total += m * n * e                  # residual
        return total

    def describe(self):
        """One line on what the problem computes, for tables and docs."""
        a = "A^T" if self.trans_a else "A"
        b = "B^T" if self.trans_b else "B"
        if self.level == 1:
            core = f"{a}·{b}" if self.batch == 1 else f"bmm(A, B), batch {self.batch}"
            return core
        return EPILOGUES[self.epilogue]


# What each level-2 chain computes (t = x W^T + b, f32 inside the kernel).
EPILOGUES = {
    "none": "GEMM",
    "bias_relu": "relu(x·W^T + b)",
    "scale_hardtanh_gelu": "gelu_erf(hardtanh(0.5·(x·W^T + b), -2, 2))",
    "gelu_softmax": "softmax(gelu_erf(x·W^T + b), dim=1)",
    "scale_residual": "0.5·(x·W^T + b) + r",
}


def suite():
    """All problems, level 1 then level 2, f32 before bf16 per shape."""
    shapes = [
        # KernelBench level 1 (sizes of its current release; the irregular
        # one with M, N, K as the first H200 measurements, docs/h200.md).
        dict(base="l1_square", level=1, m=4096, n=4096, k=4096,
             source="1_Square_matrix_multiplication_"),
        dict(base="l1_standard", level=1, m=2048, n=4096, k=8192,
             source="2_Standard_matrix_multiplication_"),
        dict(base="l1_trans_a", level=1, m=2048, n=4096, k=8192, trans_a=True,
             source="16_Matmul_with_transposed_A"),
        dict(base="l1_trans_b", level=1, m=2048, n=4096, k=8192, trans_b=True,
             source="17_Matmul_with_transposed_B"),
        dict(base="l1_trans_ab", level=1, m=2048, n=4096, k=8192,
             trans_a=True, trans_b=True,
             source="18_Matmul_with_transposed_both"),
        dict(base="l1_batched", level=1, batch=128, m=512, n=2048, k=1024,
             source="3_Batched_matrix_multiplication"),
        dict(base="l1_large_k", level=1, m=256, n=256, k=524288,
             source="6_Matmul_with_large_K_dimension_"),
        dict(base="l1_small_k", level=1, m=32768, n=32768, k=64,
             source="7_Matmul_with_small_K_dimension_"),
        dict(base="l1_irregular", level=1, m=8205, n=2949, k=5921,
             source="8_Matmul_with_irregular_shapes_ (M, N, K of the anchors)"),
        # KernelBench's current matvec is 2048 x 1048576 (8 GiB in f32);
        # the earlier release's 256 x 131072 keeps the suite short.
        dict(base="l1_matvec", level=1, m=256, n=1, k=131072,
             source="4_Matrix_vector_multiplication_ (earlier release's size)"),
        # KernelBench level 2: nn.Linear (W stored [N, K]) + epilogue.
        dict(base="l2_bias_relu", level=2, m=1024, n=8192, k=8192,
             trans_b=True, epilogue="bias_relu", source="76_Gemm_Add_ReLU"),
        dict(base="l2_scale_hardtanh_gelu", level=2, m=1024, n=8192, k=8192,
             trans_b=True, epilogue="scale_hardtanh_gelu",
             source="53_Gemm_Scaling_Hardtanh_GELU"),
        dict(base="l2_gelu_softmax", level=2, m=1024, n=8192, k=8192,
             trans_b=True, epilogue="gelu_softmax",
             source="99_Matmul_GELU_Softmax"),
        # KernelBench 40 adds the GEMM's own output back; here the residual
        # is a separate [M, N] input, as in a transformer block.
        dict(base="l2_scale_residual", level=2, m=16384, n=4096, k=4096,
             trans_b=True, epilogue="scale_residual",
             source="40_Matmul_Scaling_ResidualAdd (residual as an input)"),
    ]
    # Anchor shapes beyond KernelBench (level 0: reported apart, bf16 only,
    # as cuBLAS was first timed on them on the H200, 2026-12-02).
    anchors = [
        dict(base="a_cube_8192", level=0, m=8192, n=8192, k=8192,
             source="anchor: large square"),
        dict(base="a_decode", level=0, m=16, n=11008, k=4096, trans_b=True,
             source="anchor: skinny M (decode), nn.Linear weight"),
        dict(base="a_huge_k", level=0, m=128, n=128, k=65536,
             source="anchor: huge K"),
        dict(base="a_tiny_k", level=0, m=4096, n=4096, k=256,
             source="anchor: tiny K"),
        # Serving shapes where a stand-in LLM's scripts beat the built-in
        # choice on an H100 (docs/benchmarks/2026-12-07-tuning-at-scale):
        # Qwen2.5-7B's down projection at one token, its head and up
        # projection at 32.
        dict(base="a_down_m1", level=0, m=1, n=3584, k=18944, trans_b=True,
             source="anchor: Qwen2.5-7B down_proj, decode at M = 1"),
        dict(base="a_head_m32", level=0, m=32, n=152064, k=3584, trans_b=True,
             source="anchor: Qwen2.5-7B lm_head at M = 32"),
        dict(base="a_up_m32", level=0, m=32, n=18944, k=3584, trans_b=True,
             source="anchor: Qwen2.5-7B up_proj at M = 32"),
    ]
    return ([Problem(dtype=dt, **s) for s in shapes for dt in DTYPES] +
            [Problem(dtype="bf16", **s) for s in anchors])


def gemm_alone(p):
    """A level-2 chain's GEMM without its bias and epilogue: same shapes,
    layouts and dtype, the result rounded once (what fusing costs is the
    chain's time over this one's)."""
    return dataclasses.replace(p, epilogue="none")


def scaled(p, div):
    """The same problem with every dimension divided by ``div`` (min 1).

    Keeps the structure (transposes, epilogue, dtype) for quick compile
    tests; dimensions of 1 stay 1.
    """
    return dataclasses.replace(
        p, base=p.base + "_small", m=max(1, p.m // div) if p.m > 1 else 1,
        n=max(1, p.n // div) if p.n > 1 else 1, k=max(1, p.k // div),
        batch=max(1, p.batch // div) if p.batch > 1 else 1)


# --------------------------------------------------------------------------
# MLIR generation


def _tt(shape, et):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + et + ">"


def _gelu_erf(lines, x, out):
    """Append GELU(erf) of SSA value ``x`` to ``lines``, result in ``out``."""
    lines += [
        f"    %g_s = arith.mulf {x}, %c_rsqrt2 : f32",
        "    %g_erf = math.erf %g_s : f32",
        "    %g_p = arith.addf %g_erf, %c_one : f32",
        f"    %g_h = arith.mulf {x}, %c_half : f32",
        f"    {out} = arith.mulf %g_h, %g_p : f32",
    ]


def _f32(v):
    """An f32 literal MLIR parses exactly for these constants."""
    return repr(float(v))


def input_shapes(p):
    """Operand shapes in argument order: A, B[, bias[, residual]]."""
    a = [p.k, p.m] if p.trans_a else [p.m, p.k]
    b = [p.n, p.k] if p.trans_b else [p.k, p.n]
    if p.batch > 1:
        a, b = [p.batch] + a, [p.batch] + b
    shapes = [a, b]
    if p.epilogue != "none":
        shapes.append([p.n])
    if p.epilogue == "scale_residual":
        shapes.append([p.m, p.n])
    return shapes


def output_shape(p):
    return ([p.batch] if p.batch > 1 else []) + [p.m, p.n]


def mlir(p):
    """The problem as a func.func on tensors, in the style of examples/."""
    et = p.dtype
    bf16 = et == "bf16"
    shapes = input_shapes(p)
    out = output_shape(p)
    acc_t = _tt(out, "f32")
    out_t = _tt(out, et)
    rank = len(out)
    args = ["%a", "%b", "%bias", "%res"][:len(shapes)]
    sig = ", ".join(f"{a}: {_tt(s, et)}" for a, s in zip(args, shapes))

    head = [f"// {p.name}: {p.describe()}, M={p.m} N={p.n} K={p.k}"
            + (f" batch={p.batch}" if p.batch > 1 else "")
            + f", {et}" + (" operands, f32 accumulation" if bf16 else "")
            + ".",
            f"// KernelBench level {p.level}: {p.source}."]
    maps = []
    transposed = p.trans_a or p.trans_b
    if transposed:
        # Batched: the batch dimension leads every operand.
        d, b = ("(bt, m, n, k)", "bt, ") if p.batch > 1 else ("(m, n, k)", "")
        maps += [f"#mA = affine_map<{d} -> ({b}{'k, m' if p.trans_a else 'm, k'})>",
                 f"#mB = affine_map<{d} -> ({b}{'n, k' if p.trans_b else 'k, n'})>",
                 f"#mC = affine_map<{d} -> ({b}m, n)>"]
    if bf16 or p.epilogue != "none":  # an elementwise generic follows the GEMM
        maps += ["#id = affine_map<(m, n) -> (m, n)>" if rank == 2
                 else "#id = affine_map<(b, m, n) -> (b, m, n)>"]
    if p.epilogue != "none":
        maps += ["#row = affine_map<(m, n) -> (n)>"]
    body = [f"func.func @{p.name}({sig}) -> {out_t} {{",
            "  %zero = arith.constant 0.0 : f32",
            f"  %init = tensor.empty() : {acc_t}",
            f"  %acc = linalg.fill ins(%zero : f32) outs(%init : {acc_t}) -> {acc_t}"]
    ins = f"ins(%a, %b : {_tt(shapes[0], et)}, {_tt(shapes[1], et)})"
    if transposed:
        op = "linalg.batch_matmul" if p.batch > 1 else "linalg.matmul"
        body.append(f"  %mm = {op} indexing_maps = [#mA, #mB, #mC] {ins}"
                    f" outs(%acc : {acc_t}) -> {acc_t}")
    elif p.batch > 1:
        body.append(f"  %mm = linalg.batch_matmul {ins} outs(%acc : {acc_t}) -> {acc_t}")
    else:
        body.append(f"  %mm = linalg.matmul {ins} outs(%acc : {acc_t}) -> {acc_t}")
    par = ", ".join(['"parallel"'] * rank)

    if p.epilogue == "none":
        if not bf16:
            body.append(f"  return %mm : {acc_t}")
        else:
            body += [f"  %out = tensor.empty() : {out_t}",
                     "  %y = linalg.generic {indexing_maps = [#id, #id], "
                     f"iterator_types = [{par}]}}",
                     f"         ins(%mm : {acc_t}) outs(%out : {out_t}) {{",
                     "  ^bb0(%v: f32, %o: bf16):",
                     "    %r = arith.truncf %v : f32 to bf16",
                     "    linalg.yield %r : bf16",
                     f"  }} -> {out_t}",
                     f"  return %y : {out_t}"]
        return "\n".join(head + maps + body + ["}", ""])

    # Level 2: one elementwise generic over (acc, bias[, residual]).
    softmax = p.epilogue == "gelu_softmax"
    # The softmax closes the dispatch, so nothing may follow it: in bf16
    # the GELU result is rounded to bf16 and the softmax runs on bf16, as
    # PyTorch's bf16 module does.
    gen_t = out_t
    gen_ins = ["%mm", "%bias"] + (["%res"] if p.epilogue == "scale_residual" else [])
    gen_types = [acc_t, _tt([p.n], et)] + (
        [out_t] if p.epilogue == "scale_residual" else [])
    gen_maps = ["#id", "#row"] + (
        ["#id"] if p.epilogue == "scale_residual" else []) + ["#id"]
    bb_args = ["%v: f32", f"%bv: {et}"] + (
        [f"%rv: {et}"] if p.epilogue == "scale_residual" else []) + [f"%o: {et}"]
    g = ["  ^bb0(" + ", ".join(bb_args) + "):",
         "    %c_zero = arith.constant 0.0 : f32",
         "    %c_half = arith.constant 0.5 : f32",
         "    %c_one = arith.constant 1.0 : f32",
         f"    %c_rsqrt2 = arith.constant {_f32(RSQRT2)} : f32",
         f"    %c_scale = arith.constant {_f32(SCALE)} : f32",
         f"    %c_lo = arith.constant {_f32(HARDTANH[0])} : f32",
         f"    %c_hi = arith.constant {_f32(HARDTANH[1])} : f32"]
    if bf16:
        g.append("    %bf = arith.extf %bv : bf16 to f32")
        bias = "%bf"
    else:
        bias = "%bv"
    g.append(f"    %t = arith.addf %v, {bias} : f32")
    if p.epilogue == "bias_relu":
        g.append("    %y = arith.maximumf %t, %c_zero : f32")
    elif p.epilogue == "scale_hardtanh_gelu":
        g += ["    %s = arith.mulf %t, %c_scale : f32",
              "    %cl0 = arith.maximumf %s, %c_lo : f32",
              "    %cl = arith.minimumf %cl0, %c_hi : f32"]
        _gelu_erf(g, "%cl", "%y")
    elif p.epilogue == "gelu_softmax":
        _gelu_erf(g, "%t", "%y")
    elif p.epilogue == "scale_residual":
        if bf16:
            g.append("    %rf = arith.extf %rv : bf16 to f32")
            res = "%rf"
        else:
            res = "%rv"
        g += ["    %s = arith.mulf %t, %c_scale : f32",
              f"    %y = arith.addf %s, {res} : f32"]
    else:
        raise ValueError(f"unknown epilogue {p.epilogue!r}")
    if bf16:
        g += ["    %yr = arith.truncf %y : f32 to bf16", "    linalg.yield %yr : bf16"]
    else:
        g.append("    linalg.yield %y : f32")
    body += [f"  %out = tensor.empty() : {gen_t}",
             f"  %e = linalg.generic {{indexing_maps = [{', '.join(gen_maps)}], "
             f"iterator_types = [{par}]}}",
             f"         ins({', '.join(gen_ins)} : {', '.join(gen_types)})"
             f" outs(%out : {gen_t}) {{"]
    body += g
    body.append(f"  }} -> {gen_t}")
    if softmax:
        body += [f"  %sm_out = tensor.empty() : {out_t}",
                 f"  %sm = linalg.softmax dimension(1) ins(%e : {gen_t})"
                 f" outs(%sm_out : {out_t}) -> {out_t}",
                 f"  return %sm : {out_t}"]
    else:
        body.append(f"  return %e : {out_t}")
    return "\n".join(head + maps + body + ["}", ""])
