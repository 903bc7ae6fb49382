#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin).
# Ragged wgmma tiles: M and N not multiples of the tile, K not of 64 (the
# last K-tile half out of bounds), with one and with two consumers, in all
# four operand layouts, batched; plus a GEMM + bias + ReLU chain on the
# staged epilogue. Verified on fresh inputs,
# then under compute-sanitizer memcheck.
# With SET=splitk, huge-K shapes instead (wgmma split-K): ragged M and N in
# the tile, A stored [K, M], B stored [N, K], a bias + ReLU on the combine.
# Usage: [SET=splitk] tools/gpu/wgmma-edges.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest" /tmp/wgedge
source tools/gpu/env.sh
python3 - <<'PY'
import os, sys; sys.path.insert(0, "python/bench"); import problems
from problems import Problem
# (batch, M, N, K, A stored [K, M], B stored [N, K], epilogue). The batched
# cases take wgmma only once chooseWgmmaTiling stops refusing batches (each
# line prints the kind the scheduler chose).
cases = [(1, 2000, 1992, 1000, False, False, None),
         (1, 4000, 3960, 1000, False, False, None),
         (1, 4000, 3950, 1000, False, True, None),
         (1, 2000, 1992, 1000, True, False, None),
         (1, 3960, 4000, 1000, True, True, None),
         (1, 2048, 4096, 1024, False, True, "bias_relu"),
         (16, 1000, 1000, 520, False, False, None),
         (4, 1000, 600, 256, False, False, None)]
if os.environ.get("SET") == "splitk":
    cases = [(1, 256, 256, 262144, False, False, None),
             (1, 208, 144, 65536, False, False, None),
             (1, 128, 128, 65536, False, True, None),
             (1, 128, 192, 65536, True, False, None),
             (1, 256, 256, 131072, False, True, "bias_relu")]
for batch, m, n, k, ta, tb, epi in cases:
    layout = ("t" if ta else "n") + ("t" if tb else "n")
    p = Problem(base=f"w{batch}x{m}x{n}x{k}_{layout}" + (f"_{epi}" if epi else ""),
                level=1, dtype="bf16", batch=batch, m=m, n=n, k=k, trans_a=ta,
                trans_b=tb, epilogue=epi or "none")
    open(f"/tmp/wgedge/{p.name}.mlir", "w").write(problems.mlir(p))
PY
bash tools/gpu/verify-edges.sh /tmp/wgedge "$dest/edges.txt"
