#!/usr/bin/env bash
# On the GPU machine, from the repository root, carrying build/bin/vibegemm-run,
# .dist/run-libs.tar.xz and prepare.sh's ART: runs the whole function at
# sizes that reach both edges of every GEMM bucket, each run verified against
# the reference kernels, one JSON per target into OUT; the generic
# dispatches without a GEMM likewise, and the [M, 4096] row sum timed at
# M = 1, 16, 2048 beside the same kernel compiled for that M; then the
# adversarial suite.
# Usage: run-gpu.sh ART OUT
set -uo pipefail
art=$1 out=$2
source utils/gpu/env.sh
run=build/bin/vibegemm-run
nvidia-smi -L > "$out/device.txt" 2>&1
for t in sm_90 sm_90a; do
  "$run" --json --dims M=1,2,7,16,17,64,65,256,257,1024,1025,3000 \
    "$art/bert/$t/BertWrapper.plan.json" > "$out/bert-$t.json"
  "$run" --json --dim B=3 --dims S=1,16,17,1000 \
    "$art/nogemm/$t/tanh_batch_d0.plan.json" > "$out/tanh-$t.json"
  "$run" --json --dims M=1,255,256,257,70000 \
    "$art/nogemm/$t/rowsum.plan.json" > "$out/rowsum-$t.json"
  for m in 1 16 2048; do
    "$run" --json --dim M=$m "$art/nogemm/$t/rowsum_wide.plan.json" \
      > "$out/wide-dyn-$t-$m.json"
    "$run" --json "$art/static/$t-$m/rowsum_wide_d0.plan.json" \
      > "$out/wide-static-$t-$m.json"
  done
done
python3 test/Runtime/adversarial/check.py --vibegemm-run "$run" \
  --cases test/Runtime/Inputs > "$out/adversarial.txt" 2>&1
