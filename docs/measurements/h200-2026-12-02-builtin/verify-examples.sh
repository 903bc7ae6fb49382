#!/usr/bin/env bash
# Runs on the GPU machine: unpacks the carried MLIR libraries, compiles the
# shipped examples and e2e inputs with vibegemm-opt there, then verifies
# every plan with vibegemm-run and times the GEMMs beside cuBLAS.
# Usage (repo root): docs/measurements/h200-2026-12-02-builtin/verify-examples.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
out=/tmp/vg-results
mkdir -p "$dest" "$out" /tmp/vg /tmp/art
tar -C /tmp/vg -xJf .dist/vibegemm-libs.tar.xz
export PATH=/usr/local/cuda/bin:$PATH
vg() { LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-opt "$@"; }
vr() { LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-run "$@"; }
compile() { # name input
  vg --llm-schedule="artifacts-dir=/tmp/art/$1" "$2" -o "/tmp/art/$1.gpu.mlir" 2>&1 | tee -a "$out/compile.log"
}
run() { # plan [vibegemm-run args...]
  local plan=$1; shift
  local name; name=$(basename "$plan" .plan.json)
  vr --seed=1234 "$@" "$plan" 2>>"$out/run.log" | tee -a "$out/summary.txt"
  vr --seed=1234 --json "$@" "$plan" >"$out/$name.json" 2>>"$out/run.log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv | tee "$out/summary.txt"
compile gemm_f32 examples/gemm_f32.mlir
compile linear_gelu examples/gemm_bias_gelu_bf16.mlir
compile mlp examples/mlp_block_f16.mlir
compile ragged test/e2e/ragged-f32.mlir
compile bmm test/e2e/batch-matmul-f16.mlir
compile softmax test/e2e/softmax-after-gemm.mlir
compile ragged_k test/e2e/ragged-k-f32.mlir
compile acc test/e2e/accumulate-input-f32.mlir
run /tmp/art/gemm_f32/gemm_d0.plan.json --compare=cublas
# Twice, to see the run-to-run spread.
run /tmp/art/gemm_f32/gemm_d0.plan.json --compare=cublas
run /tmp/art/linear_gelu/linear_gelu_d0.plan.json --compare=cublas
run /tmp/art/mlp/mlp.plan.json
run /tmp/art/ragged/ragged_d0.plan.json --compare=cublas
run /tmp/art/ragged_k/ragged_k_d0.plan.json --compare=cublas
run /tmp/art/acc/gemm_acc_d0.plan.json
run /tmp/art/bmm/bmm_d0.plan.json
run /tmp/art/softmax/gemm_softmax_d0.plan.json
cp /tmp/art/gemm_f32/report.json "$out/gemm_f32.report.json"
cp "$out/summary.txt" "$dest/summary.txt"
tar -C "$out" -czf "$dest/details.tar.gz" .
