#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): profiles
# the f32 NN and NT (B stored [N, K]) GEMMs of the built-in scheduler under
# Nsight Compute, one verified run each: time, shared loads and their bank
# conflicts, and the speed-of-light, occupancy and warp-stall sections (what
# holds the FFMA kernel back). First written to check that NT's 3x deficit
# on the staged schedule was bank conflicts.
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
  timeout 300 ncu --metrics "$metrics" --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section LaunchStats \
    build/bin/vibegemm-run --no-isolate --reference=none \
    --verify-only "$work/$name/artifacts/${name}_d0.plan.json" 2>&1 |
    grep -vE "^==PROF==|^ *-+ *$"
done | tee "$dest/conflicts.txt"
