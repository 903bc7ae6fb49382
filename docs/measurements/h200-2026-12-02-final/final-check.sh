#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and the two tools): the
# adversarial suite again, then the irregular bf16 KernelBench shape, which
# compiles since ragged epilogues run as kernels of their own.
# Usage: docs/measurements/h200-2026-12-02-final/final-check.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source utils/gpu/env.sh
python3 test/Runtime/adversarial/check.py --vibegemm-run build/bin/vibegemm-run \
  --cases test/Runtime/Inputs --json-out "$dest/adversarial.json" 2>&1 | tail -3 | tee "$dest/final.log"
python3 -c "
import sys; sys.path.insert(0, 'python/bench')
import problems
for p in problems.suite():
    if p.name == 'l1_irregular_bf16':
        open('/tmp/irr.mlir', 'w').write(problems.mlir(p))"
build/bin/vibegemm-opt /tmp/irr.mlir --llm-schedule="artifacts-dir=/tmp/irr measure=off" -o /tmp/irr.gpu.mlir 2>&1 | tee -a "$dest/final.log"
build/bin/vibegemm-run --compare=cublas /tmp/irr/l1_irregular_bf16_d0.plan.json 2>&1 | tee -a "$dest/final.log"
build/bin/vibegemm-run --json --compare=cublas /tmp/irr/l1_irregular_bf16_d0.plan.json > "$dest/irregular-bf16.json" 2>&1
