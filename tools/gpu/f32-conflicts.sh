#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): checks
# the diagnosis in docs/benchmarks/h200-2026-12-03-reduce/README.md that f32
# GEMMs with B stored [N, K] are 3x slower than NN because of shared-memory
# bank conflicts. Compiles both with the built-in scheduler and profiles one
# verified run of each under Nsight Compute: time, shared loads executed and
# their bank conflicts.
# Usage: tools/gpu/f32-conflicts.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source tools/gpu/env.sh
work=/tmp/f32c
python3 python/bench/bench.py compile --out "$work" --jobs 2 \
  --only 'l1_standard_f32|l1_trans_b_f32' --vibegemm-opt build/bin/vibegemm-opt \
  > "$dest/compile.log" 2>&1
metrics=gpu__time_duration.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for name in l1_standard_f32 l1_trans_b_f32; do
  echo "== $name"
  timeout 300 ncu --metrics "$metrics" build/bin/vibegemm-run --no-isolate \
    --verify-only "$work/$name/artifacts/${name}_d0.plan.json" 2>&1 |
    grep -E "_d0_kernel_[0-9]+|gpu__time|shared|verified|ok|wrong"
done | tee "$dest/conflicts.txt"
