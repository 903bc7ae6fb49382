#!/usr/bin/env bash
# Compiles, on any machine, what run-gpu.sh verifies: the dynamic-batch
# linear (test/e2e/Inputs/linear-dynamic-batch-bf16.mlir) and the
# dynamic-M attention scores with a softmax
# (test/e2e/Inputs/scores-dynamic-m-f32.mlir), each for sm_90 and sm_90a,
# built-in scheduler, measure=off.
# Usage: prepare.sh VIBEGEMM_OPT ART_DIR   (from the repository root)
set -euo pipefail
opt=$1 art=$2
for t in sm_90 sm_90a; do
  rm -rf "$art/batch/$t" "$art/scores/$t"
  "$opt" test/e2e/Inputs/linear-dynamic-batch-bf16.mlir \
    --llm-schedule="artifacts-dir=$art/batch/$t measure=off target=$t" -o /dev/null
  "$opt" test/e2e/Inputs/scores-dynamic-m-f32.mlir \
    --llm-schedule="artifacts-dir=$art/scores/$t measure=off target=$t" -o /dev/null
done
