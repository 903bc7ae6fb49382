#!/usr/bin/env bash
# Compiles, on the build machine (no GPU), the plans run-gpu.sh times:
# build/gpu/ab-a with vibegemm-opt as it was before the decode policy
# change (build/bin/vibegemm-opt-a, built here from c0ca8e5^ in a worktree
# when missing), build/gpu/ab-b with the current one, and build/gpu/pdl
# with programmatic launches; then the library archive the GPU machine
# needs for vibegemm-opt (STEP=loop).
# Usage: prepare.sh   (from the repository root, after ./scripts/setup.sh)
set -euo pipefail
only='a_down_m1|a_head_m32|a_up_m32|l1_matvec|a_decode|a_huge_k|l1_large_k'
rm -rf build/gpu && mkdir -p build/gpu
# AB=1: also the plans of the commit before the decode policy change.
if [ "${AB:-0}" = 1 ] && [ ! -x build/bin/vibegemm-opt-a ]; then
  before=/tmp/vibegemm-before
  [ -d "$before" ] || git worktree add --detach "$before" c0ca8e5^
  cmake -S "$before" -B "$before/build" -G Ninja -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  ninja -C "$before/build" vibegemm-opt
  cp "$before/build/bin/vibegemm-opt" build/bin/vibegemm-opt-a
fi
[ "${AB:-0}" = 1 ] && python3 python/bench/bench.py compile --out build/gpu/ab-a --only "$only" \
  --dtypes bf16 --vibegemm-opt build/bin/vibegemm-opt-a
python3 python/bench/bench.py compile --out build/gpu/ab-b --only "$only|l1_irregular" \
  --dtypes bf16
python3 python/bench/bench.py compile --out build/gpu/pdl --only "$only|l1_irregular" \
  --dtypes bf16 --programmatic-launch
bash utils/dist/package-libs.sh build/bin/vibegemm-opt .dist/vibegemm-libs.tar.xz
rm -f .dist/vibegemm-libs.tar.xz.part-* .dist/vibegemm-libs.tar.xz.parts
