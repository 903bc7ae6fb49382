#!/usr/bin/env bash
# Compiles, on the build machine (no GPU), the plans run-gpu.sh times:
# build/gpu/ab-a with vibegemm-opt as it was before the decode policy
# change (build/bin/vibegemm-opt-a, built from c0ca8e5^), build/gpu/ab-b
# with the current one, and build/gpu/pdl with programmatic launches.
# Usage: prepare.sh   (from the repository root)
set -euo pipefail
only='a_down_m1|a_head_m32|a_up_m32|l1_matvec|a_decode|a_huge_k|l1_large_k'
rm -rf build/gpu && mkdir -p build/gpu
python3 python/bench/bench.py compile --out build/gpu/ab-a --only "$only" \
  --dtypes bf16 --vibegemm-opt build/bin/vibegemm-opt-a
python3 python/bench/bench.py compile --out build/gpu/ab-b --only "$only|l1_irregular" \
  --dtypes bf16
python3 python/bench/bench.py compile --out build/gpu/pdl --only "$only|l1_irregular" \
  --dtypes bf16 --programmatic-launch
