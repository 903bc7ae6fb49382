#!/usr/bin/env bash
# Rebuild ../Inputs/kernels.ptx (checked in; the adversarial plans and the
# malformed-plan inputs beside it load it) from ../Inputs/kernels.cu and check
# it with ptxas, then check every adversarial plan against it with
# `vibegemm-run --validate-only`. Needs the CUDA toolkit and a built
# vibegemm-run, no GPU.
# Usage: test/Runtime/adversarial/regenerate.sh
#   (CUDA_HOME: /usr/local/cuda; VIBEGEMM_RUN: build/bin/vibegemm-run)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run="${VIBEGEMM_RUN:-$here/../../../build/bin/vibegemm-run}"
case "$run" in */*) run=$(cd "$(dirname "$run")" && pwd)/$(basename "$run") ;; esac
cd "$here/../Inputs"
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
# -O3 is nvcc's default for device code; the spin loop and the bad store
# survive it because they go through volatile accesses.
"$cuda_home/bin/nvcc" -arch=sm_90 -ptx -o kernels.ptx kernels.cu
"$cuda_home/bin/ptxas" -arch=sm_90 kernels.ptx -o /dev/null
# Every adversarial plan (those with an "expect" key) and ok.plan.json must
# still match the PTX: kernel names, argument counts and sizes. The malformed
# plans are checked by test/Runtime/plan-errors.test.
for plan in $(grep -l '"expect"' ./*.plan.json) ok.plan.json; do
  # Plans with run-time sizes validate at the sizes their case runs at.
  dims=$(python3 -c 'import json, sys
print(" ".join("--dim=%s=%d" % kv for kv in json.load(open(sys.argv[1]))["expect"].get("sizes", {}).items()))' "$plan" 2>/dev/null || true)
  "$run" --validate-only $dims "$plan" >/dev/null
done
echo "regenerated $(pwd)/kernels.ptx; every plan validates"
