#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying the library parts and the two
# tools): the bf16 benchmark suite with the anchor shapes (tensor cores),
# a verify-only pass over every f32 problem (the SIMT path must be
# unchanged), and compute-sanitizer memcheck over tensor-core kernels at the
# path's edges (misaligned rows, ragged tiles, split-K).
# Usage: docs/benchmarks/h200-2026-12-02-tc/final-tc.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
TIME_BUDGET=${TIME_BUDGET:-380} bash docs/benchmarks/h200-2026-12-02-tc/tc-check.sh "$dest/tc" 2>&1 |
  grep -E "vibegemm:|cuBLAS:|\[[0-9]+/" | paste - - - | cut -c1-160
source utils/gpu/env.sh
python3 python/bench/bench.py compile --out /tmp/f32 --dtypes f32 \
  --vibegemm-opt build/bin/vibegemm-opt > "$dest/f32-compile.log" 2>&1
for plan in /tmp/f32/*/artifacts/*_d0.plan.json; do
  printf '%s: ' "$(basename "$plan" .plan.json)"
  timeout 120 build/bin/vibegemm-run --verify-only "$plan" 2>&1 | tail -1
done | tee "$dest/f32-verify.txt"
mkdir -p /tmp/edge
python3 - <<'PY'
import sys; sys.path.insert(0, "python/bench"); import problems
from problems import Problem
for m, n, k in [(100, 100, 4096), (128, 98, 4096), (128, 128, 65536), (8205 // 8, 2949 // 8, 5921 // 8)]:
    p = Problem(base=f"e{m}x{n}x{k}", level=1, dtype="bf16", m=m, n=n, k=k)
    open(f"/tmp/edge/{p.name}.mlir", "w").write(problems.mlir(p))
PY
for src in /tmp/edge/*.mlir; do
  name=$(basename "$src" .mlir)
  build/bin/vibegemm-opt "$src" --llm-schedule="artifacts-dir=/tmp/edge/$name measure=off" -o /dev/null 2>/dev/null
  printf '%s: ' "$name"
  compute-sanitizer --tool memcheck --print-limit 5 build/bin/vibegemm-run --no-isolate \
    --verify-only "/tmp/edge/$name/${name}_d0.plan.json" 2>&1 | grep -E "ERROR SUMMARY|status|ok|wrong" | tr '\n' ' '
  echo
done | tee "$dest/memcheck.txt"
