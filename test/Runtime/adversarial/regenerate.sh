#!/usr/bin/env bash
# Rebuild kernels.ptx (checked in; the *.plan.json files load it) from
# kernels.cu and check it with ptxas. Needs only the CUDA toolkit, no GPU.
# Usage: test/Runtime/adversarial/regenerate.sh (CUDA_HOME: /usr/local/cuda)
set -euo pipefail
cd "$(dirname "$0")"
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
# -O3 is nvcc's default for device code; the spin loop and the bad store
# survive it because they go through volatile accesses.
"$cuda_home/bin/nvcc" -arch=sm_90 -ptx -o kernels.ptx kernels.cu
"$cuda_home/bin/ptxas" -arch=sm_90 kernels.ptx -o /dev/null
# Every plan must still match the PTX (kernel names, parameter bytes).
for plan in *.plan.json; do
  if ! log=$(python3 ../../../python/vibegemm_run_plan.py "$plan" --dry-run --seed 1 2>&1); then
    printf '%s\n' "$log" >&2
    exit 1
  fi
done
echo "regenerated $(pwd)/kernels.ptx; every plan validates"
