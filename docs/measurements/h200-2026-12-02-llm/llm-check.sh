#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the LLM
# loop end to end against the scripted fake server, with every candidate
# measured on the GPU, then the winner re-run beside cuBLAS.
# Usage: docs/measurements/h200-2026-12-02-llm/llm-check.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
art=/tmp/llm-art
mkdir -p "$dest"
source utils/gpu/env.sh
ldd build/bin/vibegemm-opt | grep "not found" | tee "$dest/llm.log"
rm -rf /tmp/llm-cache "$art"
python3 test/lib/fake_llm_server.py --script test/Tuner/Inputs/good-reply.json \
  --log "$dest/requests.jsonl" --print-count -- \
  env VIBEGEMM_LLM_API_KEY=sk-test-123 build/bin/vibegemm-opt examples/gemm_f32.mlir \
  --llm-schedule="endpoint={endpoint} model=test-model rounds=2 candidates=2 artifacts-dir=$art cache-dir=/tmp/llm-cache db=/tmp/llm-tune.db" \
  -o /tmp/gemm.gpu.mlir 2>&1 | tee -a "$dest/llm.log"
build/bin/vibegemm-run --compare=cublas "$art/gemm_d0.plan.json" 2>&1 | tee -a "$dest/llm.log"
if grep -rq sk-test-123 "$art" /tmp/gemm.gpu.mlir "$dest/llm.log"; then
  echo "KEY LEAKED" | tee -a "$dest/llm.log"
else
  echo "key: not in any output" | tee -a "$dest/llm.log"
fi
cp "$art/report.json" "$art/report.html" "$dest/" 2>/dev/null
tar -C /tmp -czf "$dest/art.tgz" llm-art llm-tune.db 2>/dev/null
true
