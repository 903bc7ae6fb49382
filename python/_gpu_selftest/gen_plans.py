"""Write the self-test plans next to this file (run on the GPU machine)."""
import json
import os

D = os.path.dirname(os.path.abspath(__file__))
SMEM = (64 * 17 + 16 * 65) * 4


def buf(name, kind, shape, dtype, idx=None):
    b = {"name": name, "kind": kind, "shape": shape, "dtype": dtype}
    if kind == "input":
        b["arg_index"] = idx
    if kind == "output":
        b["result_index"] = idx
    return b


def launch(kernel, grid, args, smem=SMEM, ptx="kernels.ptx"):
    return {"ptx": ptx, "kernel": kernel, "grid": grid, "block": [256, 1, 1],
            "shared_bytes": smem, "args": args}


def B(n):
    return {"buffer": n}


def gemm_f32(M, N, K, k_arg=None, extra=(), smem=98304, scratch=False):
    p = {"version": 1, "function": "gemm", "dispatch": "gemm_d0",
         "target": "sm_90", "flops": 2.0 * M * N * K,
         "buffers": [buf("a", "input", [M, K], "f32", 0),
                     buf("b", "input", [K, N], "f32", 1),
                     buf("c", "output", [M, N], "f32", 0)],
         "launches": [launch("gemm_f32", [N // 64, M // 64, 1],
                             [B("a"), B("b"), B("c"), {"i32": M},
                              {"i32": N}, {"i32": k_arg or K}], smem)]}
    p["launches"] += list(extra)
    if scratch:
        p["buffers"].append({"name": "ws", "kind": "scratch", "bytes": 256,
                             "zero_init": True})
    return p


plans = {
    "gemm_f32": gemm_f32(4096, 4096, 4096),
    "gelu_bf16": {
        "version": 1, "function": "linear_gelu", "dispatch": "linear_gelu_d0",
        "target": "sm_90",
        "buffers": [buf("x", "input", [1024, 8192], "bf16", 0),
                    buf("w", "input", [8192, 8192], "bf16", 1),
                    buf("bias", "input", [8192], "f32", 2),
                    buf("y", "output", [1024, 8192], "bf16", 0)],
        "launches": [launch("gemm_bias_gelu_bf16", [128, 16, 1],
                            [B("x"), B("w"), B("bias"), B("y"),
                             {"i64": 1024}, {"i64": 8192}, {"i64": 8192}])]},
    "mlp_f16": {
        "version": 1, "function": "mlp", "target": "sm_90",
        "flops": 2.0 * 2 * 512 * 1024 * 4096,
        "buffers": [buf("x", "input", [512, 1024], "f16", 0),
                    buf("w1", "input", [1024, 4096], "f16", 1),
                    buf("b1", "input", [4096], "f32", 2),
                    buf("w2", "input", [4096, 1024], "f16", 3),
                    buf("b2", "input", [1024], "f32", 4),
                    buf("h", "temp", [512, 4096], "f16"),
                    buf("y", "output", [512, 1024], "f16", 0)],
        "launches": [
            launch("mlp_gemm1", [64, 8, 1], [B("x"), B("w1"), B("b1"), B("h"),
                                            {"i32": 512}, {"i32": 4096},
                                            {"i32": 1024}]),
            launch("mlp_gemm2", [16, 8, 1], [B("h"), B("w2"), B("b2"), B("x"),
                                            B("y"), {"i32": 512},
                                            {"i32": 1024}, {"i32": 4096}])]},
    "wrong": gemm_f32(256, 256, 256, k_arg=255, smem=SMEM),
    "guard": gemm_f32(256, 256, 256, smem=SMEM, extra=[
        {"ptx": "kernels.ptx", "kernel": "oob_write", "grid": [1],
         "block": [32], "args": [B("c"), {"i32": 256 * 256}, {"f32": 7.0}]}]),
    "fault": gemm_f32(256, 256, 256, smem=SMEM, extra=[
        {"ptx": "kernels.ptx", "kernel": "illegal_write", "grid": [1],
         "block": [32], "args": [B("c")]}]),
    "hang": gemm_f32(256, 256, 256, smem=SMEM, scratch=True, extra=[
        {"ptx": "kernels.ptx", "kernel": "hang", "grid": [1], "block": [1],
         "args": [B("ws")]}]),
    "badptx": gemm_f32(256, 256, 256, smem=SMEM),
    "small": gemm_f32(256, 256, 256, smem=SMEM),
}
plans["badptx"]["launches"][0]["ptx"] = "bad.ptx"
for name, p in plans.items():
    with open(os.path.join(D, name + ".plan.json"), "w") as f:
        json.dump(p, f, indent=1)
print("wrote", len(plans), "plans")
