#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): compiles
# the benchmark problems matching REGEX with the built-in scheduler, times
# each plan beside cuBLAS (vibegemm-run --compare=cublas), then profiles one
# verified run of each under Nsight Compute: every kernel's time, speed of
# light, occupancy, warp stalls, launch shape, shared loads and their bank
# conflicts. Written for the f32 NN/NT bank-conflict check
# (REGEX 'l1_standard_f32|l1_trans_b_f32'); serves any problem since.
# NCU_EXTRA adds ncu options (e.g. '--section MemoryWorkloadAnalysis');
# REFERENCE=cublas with KERNELS=. profiles cuBLAS's kernel beside ours.
# Usage: [NCU_EXTRA=...] [DTYPES=f32,bf16] [REFERENCE=none] [KERNELS=regex]
#        utils/gpu/profile-kernels.sh OUTDIR REGEX
set -uo pipefail
dest=${1:?output directory}
only=${2:?regex on benchmark problem names}
mkdir -p "$dest"
source utils/gpu/env.sh
work=/tmp/profile
python3 python/bench/bench.py compile --out "$work" --jobs 4 --dtypes "${DTYPES:-f32,bf16}" \
  --only "$only" --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
metrics=gpu__time_duration.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for dir in "$work"/*/; do
  name=$(basename "$dir")
  plan=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("plan") or "")' \
    "$dir/compile.json" 2>/dev/null)
  [ -n "$plan" ] || { echo "== $name: not compiled"; continue; }
  echo "== $name"
  timeout 120 build/bin/vibegemm-run --json --compare=cublas "$dir/artifacts/$plan" |
    python3 -c 'import json,sys; r=json.load(sys.stdin); c=r.get("cublas") or {}
print("   ", r.get("status"), "vibegemm", r.get("time_ms"), "ms, cuBLAS", c.get("time_ms"), "ms")'
  timeout 300 ncu --metrics "$metrics" --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section LaunchStats ${NCU_EXTRA:-} \
    --kernel-name regex:"${KERNELS:-_kernel_[0-9]+\$}" \
    build/bin/vibegemm-run --no-isolate --reference="${REFERENCE:-none}" \
    --verify-only "$dir/artifacts/$plan" 2>&1 |
    grep -vE "^==PROF==|^ *-+ *$"
done | tee "$dest/profile.txt"
