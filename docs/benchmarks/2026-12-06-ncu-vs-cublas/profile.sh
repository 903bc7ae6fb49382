#!/usr/bin/env bash
# Runs on the GPU machine (repo root), carrying build/bin/vibegemm-run,
# .dist/run-libs.tar.xz and .bench (the plans, compiled here; README.md):
# Nsight Compute on vibegemm's kernels and on cuBLAS's (through PyTorch) for
# the same shapes, clocks left alone. Usage: profile.sh OUTDIR
set -uo pipefail
out=${1:?output directory}
here=docs/benchmarks/2026-12-06-ncu-vs-cublas
mkdir -p "$out" /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/run-libs.tar.xz
export LD_LIBRARY_PATH=/tmp/vg/lib PATH=/usr/local/cuda/bin:$PATH
secs="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SchedulerStats"
prof() { local name=$1; shift; timeout 150 ncu --clock-control none $secs "$@" > "$out/$name.ncu.txt" 2>&1; echo "$name ncu rc=$?"; }
for p in l1_square_bf16 a_decode_bf16; do
  prof $p --kernel-name regex:'_kernel_[0-9]+$' build/bin/vibegemm-run --no-isolate --reference=none --verify-only .bench/prof/$p/artifacts/${p}_d0.plan.json
done
prof gpt2 --kernel-name regex:'_kernel_[0-9]+$' build/bin/vibegemm-run --no-isolate --reference=none --verify-only .bench/gpt2-mlp/forward.plan.json
prof cublas_square --kernel-name regex:'gemm|sm90|xmma|cutlass' --launch-skip 2 --launch-count 1 python3 $here/torch_kernels.py square
prof cublas_decode --kernel-name regex:'gemm|sm90|xmma|cutlass|gemv' --launch-skip 2 --launch-count 2 python3 $here/torch_kernels.py decode
prof cublas_gpt2 --kernel-name regex:'gemm|sm90|xmma|cutlass|sgemm' python3 $here/torch_kernels.py gpt2
