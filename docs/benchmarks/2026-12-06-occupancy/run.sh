#!/usr/bin/env bash
# Runs on the GPU machine (repo root), carrying build/bin/vibegemm-run,
# .dist/run-libs.tar.xz and .bench/occ (the candidates compiled here, see
# README.md): verifies and times each decode and huge-K candidate with
# vibegemm-run beside cuBLAS, then Nsight Compute on the built-in decode
# kernel and on the best two-blocks-per-SM one. Usage: run.sh OUTDIR
set -uo pipefail
out=${1:?output directory}
mkdir -p "$out" /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/run-libs.tar.xz
export LD_LIBRARY_PATH=/tmp/vg/lib PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/device.txt"
for dir in .bench/occ/*/; do
  name=$(basename "$dir")
  plan=$(ls "$dir"/*.plan.json | grep -v reference)
  build/bin/vibegemm-run --json --compare=cublas --seed=7 --sustain-ms=300 "$plan" \
    > "$out/$name.json" 2> "$out/$name.err"
  echo "$name rc=$?" >> "$out/summary.txt"
done
cat "$out/summary.txt"
secs="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis"
for name in a_decode_bf16_d0-0 a_decode_bf16_d0-2 a_decode_bf16_d0-4; do
  plan=$(ls .bench/occ/$name/*.plan.json | grep -v reference)
  timeout 120 ncu --clock-control none $secs --kernel-name regex:'_d0_kernel_[0-9]+$' \
    build/bin/vibegemm-run --no-isolate --reference=none --verify-only "$plan" \
    > "$out/$name.ncu.txt" 2>&1
  echo "$name ncu rc=$?"
done
