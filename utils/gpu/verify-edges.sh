#!/usr/bin/env bash
# Runs on the GPU machine (repo root, after utils/gpu/env.sh): compiles every
# .mlir in DIR for sm_90a with the built-in scheduler, verifies each plan on
# fresh inputs, then again under compute-sanitizer memcheck, one line per
# input (schedule kind, verdict, memcheck summary) to OUTFILE.
# EDGE_OPTIONS adds --llm-schedule options (e.g. f32-precision=tf32).
# Usage: [EDGE_OPTIONS=...] utils/gpu/verify-edges.sh DIR OUTFILE
set -uo pipefail
dir=${1:?directory of .mlir inputs}
out=${2:?output file}
for src in "$dir"/*.mlir; do
  name=$(basename "$src" .mlir)
  build/bin/vibegemm-opt "$src" --llm-schedule="artifacts-dir=$dir/$name measure=off target=sm_90a ${EDGE_OPTIONS:-}" -o /dev/null
  plan=$dir/$name/${name}_d0.plan.json
  printf '%s: %s ' "$name" "$(grep -o '"kind": "[a-z_]*"' "$dir/$name/report.json" | head -1)"
  timeout 120 build/bin/vibegemm-run --verify-only "$plan" 2>&1 | tail -1 | tr '\n' ' '
  compute-sanitizer --tool memcheck --print-limit 5 build/bin/vibegemm-run --no-isolate \
    --verify-only "$plan" 2>&1 | grep -E "ERROR SUMMARY" | tr '\n' ' '
  echo
done | tee "$out"
