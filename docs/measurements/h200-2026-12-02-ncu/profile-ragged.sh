#!/usr/bin/env bash
# Runs on the GPU machine: per-kernel times of the ragged 8205x2949x5921
# dispatch (fill, staged interior, two direct edges) and of the f32 4096^3
# kernel, with Nsight Compute (clocks left as they are).
# Usage (repo root): docs/measurements/h200-2026-12-02-ncu/profile-ragged.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest" /tmp/vg /tmp/art
tar -C /tmp/vg -xJf .dist/vibegemm-libs.tar.xz
export PATH=/usr/local/cuda/bin:$PATH
vg() { LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-opt "$@"; }
vr() { LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-run "$@"; }
vg --llm-schedule="artifacts-dir=/tmp/art/ragged" test/e2e/ragged-f32.mlir -o /tmp/art/ragged.mlir
vg --llm-schedule="artifacts-dir=/tmp/art/gemm" examples/gemm_f32.mlir -o /tmp/art/gemm.mlir
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for plan in /tmp/art/ragged/ragged_d0.plan.json /tmp/art/gemm/gemm_d0.plan.json; do
  "$ncu" --clock-control none --kernel-name regex:'_d0_kernel' --launch-count 8 \
    --section SpeedOfLight --section Occupancy \
    env LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-run --verify-only --seed=7 "$plan" \
      >> "$dest/ncu.txt" 2>&1
done
grep -E "_d0_kernel_[0-9]+ \(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy" \
  "$dest/ncu.txt" | tee "$dest/summary.txt"
# And the whole ragged plan timed beside cuBLAS, as verify-examples.sh does.
vr --seed=1234 --compare=cublas /tmp/art/ragged/ragged_d0.plan.json \
  2>>"$dest/run.log" | tee -a "$dest/summary.txt"
vr --seed=1234 --json --compare=cublas /tmp/art/ragged/ragged_d0.plan.json \
  >"$dest/ragged_d0.json" 2>>"$dest/run.log"
