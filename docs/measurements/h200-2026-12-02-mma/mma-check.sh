#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and the two tools): an
# LLM-written tensor-core schedule (mma.sync, via the fake server) against the
# built-in one, both verified and timed on the GPU; then the short-kernel
# timing path on a small GEMM. Usage: docs/measurements/h200-2026-12-02-mma/mma-check.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source utils/gpu/env.sh
python3 test/lib/fake_llm_server.py --script docs/measurements/h200-2026-12-02-mma/mma-scenario.json -- \
  build/bin/vibegemm-opt test/e2e/Inputs/mma-16x8x16-f16.mlir \
  --llm-schedule="endpoint={endpoint} rounds=1 candidates=1 cache-dir=off artifacts-dir=/tmp/mma" \
  -o /tmp/mma.gpu.mlir 2>&1 | tee "$dest/mma.log"
build/bin/vibegemm-run --compare=cublas /tmp/mma/mma_d0.plan.json 2>&1 | tee -a "$dest/mma.log"
cuobjdump -sass /tmp/mma/mma_d0.ptx >/dev/null 2>&1 || true
ptxas -arch=sm_90 /tmp/mma/mma_d0.ptx -o /tmp/mma.cubin && cuobjdump -sass /tmp/mma.cubin | grep -c HMMA | sed 's/^/HMMA instructions in the winner: /' | tee -a "$dest/mma.log"
cp /tmp/mma/report.json "$dest/mma-report.json"
build/bin/vibegemm-opt test/Transforms/Inputs/small-gemm.mlir --llm-schedule="artifacts-dir=/tmp/s measure=off" -o /tmp/s.mlir 2>/dev/null
for i in 1 2 3; do build/bin/vibegemm-run --json /tmp/s/small_d0.plan.json > "$dest/small-$i.json" 2>&1; done
grep -h '"method"' "$dest"/small-*.json | tee -a "$dest/mma.log"
