#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# adversarial suite, then the shipped examples compiled with measure=auto
# (so report.json holds measured candidates) and each plan re-run with
# vibegemm-run beside cuBLAS. Usage: utils/gpu/runtime-check.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
out=/tmp/vg-runtime
mkdir -p "$dest" "$out" /tmp/art
source utils/gpu/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv | tee "$out/summary.txt"
echo "cuBLAS: ${VIBEGEMM_LIBCUBLAS:-default search}" | tee -a "$out/summary.txt"

python3 test/Runtime/adversarial/check.py --vibegemm-run build/bin/vibegemm-run \
  --cases test/Runtime/Inputs --json-out "$out/adversarial.json" 2>&1 |
  tee -a "$out/summary.txt"

for ex in gemm_f32 gemm_bias_gelu_bf16 mlp_block_f16; do
  build/bin/vibegemm-opt --llm-schedule="artifacts-dir=/tmp/art/$ex" \
    "examples/$ex.mlir" -o "/tmp/art/$ex.gpu.mlir" 2>&1 | tee -a "$out/compile.log"
  cp "/tmp/art/$ex/report.json" "$out/$ex.report.json"
  for plan in /tmp/art/$ex/*.plan.json; do
    case "$plan" in *.reference.plan.json) continue ;; esac
    build/bin/vibegemm-run --compare=cublas "$plan" 2>&1 | tee -a "$out/summary.txt"
    build/bin/vibegemm-run --json --compare=cublas "$plan" \
      > "$out/$(basename "$plan" .plan.json).run.json" 2>>"$out/run.log"
  done
done
cp "$out/summary.txt" "$dest/summary.txt"
tar -C "$out" -czf "$dest/details.tar.gz" .
