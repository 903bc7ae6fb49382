#!/usr/bin/env python3
"""Per-tile fixed cost against K-loop cost: the built-in wgmma kernel and
cuBLAS on M = N = 4096 (bf16) at several K, under Nsight Compute's locked
clock.

Runs on the GPU machine (repo root, after ``source utils/gpu/env.sh``).
Cycles(K) = fixed + slope * K for each side; the fit says whether the gap
to cuBLAS is in the prologue/epilogue of a tile (intercept) or in the
main loop (slope). Also prints wgmma shared-memory bank conflicts and L2
bytes.

    python3 docs/benchmarks/h200-2026-12-04-dense-gap/k-scaling.py OUTDIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "python", "bench"))
import problems  # noqa: E402
import vibegemm_side  # noqa: E402

KS = [1024, 2048, 4096, 8192, 16384]
METRICS = ",".join([
    "sm__cycles_elapsed.max", "gpu__time_duration.sum", "lts__t_bytes.sum",
    "dram__bytes_read.sum", "sm__inst_executed_pipe_tensor_op_gmma.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
    "smsp__inst_executed.sum",
])
TORCH = """
import sys, torch
m, n, k = map(int, sys.argv[1:4])
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    torch.matmul(a, b)
torch.cuda.synchronize()
"""


def ncu(cmd, extra):
    out = subprocess.run(["ncu", "--metrics", METRICS, *extra, *cmd],
                         capture_output=True, text=True, timeout=300).stdout
    values = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] in METRICS.split(",") and parts[0] not in values:
            values[parts[0]] = (float(parts[-1].replace(",", "")), parts[-2])
    return values, out


def main():
    dest = sys.argv[1]
    os.makedirs(dest, exist_ok=True)
    torch_py = os.path.join(dest, "torch_mm.py")
    with open(torch_py, "w") as f:
        f.write(TORCH)
    rows = []
    shapes = [(4096, 4096, k) for k in KS] + [(8192, 8192, 8192)]
    for m, n, k in shapes:
        p = problems.Problem(base=f"kscale_{m}x{n}x{k}", level=1, dtype="bf16", m=m, n=n, k=k)
        pdir = os.path.join("/tmp/kscale", p.name)
        rec = vibegemm_side.compile_problem(p, problems.mlir(p), pdir, "build/bin/vibegemm-opt", 300)
        if rec["status"] != "ok":
            print(p.name, "compile failed:", rec.get("first_error"), flush=True)
            continue
        plan = os.path.join(pdir, "artifacts", rec["plan"])
        ours, raw_ours = ncu(["build/bin/vibegemm-run", "--no-isolate", "--reference=none",
                              "--verify-only", plan],
                             ["--kernel-name", "regex:_kernel_[0-9]+$", "--launch-count", "1"])
        theirs, raw_theirs = ncu([sys.executable, torch_py, str(m), str(n), str(k)],
                                 ["--kernel-name", "regex:nvjet|gemm|sm90", "--launch-skip", "1",
                                  "--launch-count", "1"])
        with open(os.path.join(dest, f"{p.name}.ncu.txt"), "w") as f:
            f.write(raw_ours + "\n\n" + raw_theirs)
        kernel = re.search(r"^\s+(\S*(nvjet|gemm)\S*)", raw_theirs, re.M)
        rows.append((m, n, k, ours, theirs, kernel.group(1) if kernel else "?"))
        c_o = ours.get("sm__cycles_elapsed.max", (0, ""))[0]
        c_t = theirs.get("sm__cycles_elapsed.max", (0, ""))[0]
        print(f"{m}x{n}x{k}: cycles vibegemm {c_o:.0f} cuBLAS {c_t:.0f} ratio {c_t / c_o if c_o else 0:.3f};"
              f" gmma bank conflicts {ours.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum')}"
              f" / {theirs.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum')};"
              f" gmma wavefronts {ours.get('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum')}"
              f" / {theirs.get('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum')};"
              f" L2 {ours.get('lts__t_bytes.sum')} / {theirs.get('lts__t_bytes.sum')};"
              f" insts {ours.get('smsp__inst_executed.sum')} / {theirs.get('smsp__inst_executed.sum')};"
              f" cuBLAS kernel {rows[-1][5]}", flush=True)
    # Least-squares line through the M = N = 4096 points.
    pts = [(k, o.get("sm__cycles_elapsed.max", (0,))[0], t.get("sm__cycles_elapsed.max", (0,))[0])
           for m, n, k, o, t, _ in rows if m == 4096]
    if len(pts) >= 2:
        for label, idx in (("vibegemm", 1), ("cuBLAS", 2)):
            xs = [p[0] for p in pts]
            ys = [p[idx] for p in pts]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            print(f"{label}: cycles = {my - slope * mx:.0f} + {slope:.2f} * K "
                  f"(per 64-wide K-tile per wave of 4 tiles: {slope * 64 / 4:.0f})")


if __name__ == "__main__":
    main()
