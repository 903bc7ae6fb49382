#!/usr/bin/env bash
# Compiles, on any machine, what run-gpu.sh verifies: BERT's feed-forward
# half and LayerNorm over a run-time sequence length
# (test/e2e/Inputs/bert-ffn-layernorm-dynamic-f32.mlir: two GEMMs in buckets
# of M, five generic dispatches reading M) and two generic dispatches
# without a GEMM (test/e2e/Inputs/generic-dynamic-f32.mlir: a row sum over
# [M, 64] and [M, 4096], tanh over [B, S, 64]; the wide row sum also at
# fixed M = 1, 16, 2048), for sm_90 and sm_90a, built-in scheduler,
# measure=off.
# Usage: prepare.sh VIBEGEMM_OPT ART_DIR   (from the repository root)
set -euo pipefail
opt=$1 art=$2
for t in sm_90 sm_90a; do
  rm -rf "$art/bert/$t" "$art/nogemm/$t"
  "$opt" test/e2e/Inputs/bert-ffn-layernorm-dynamic-f32.mlir \
    --llm-schedule="artifacts-dir=$art/bert/$t measure=off target=$t" -o /dev/null
  "$opt" test/e2e/Inputs/generic-dynamic-f32.mlir \
    --llm-schedule="artifacts-dir=$art/nogemm/$t measure=off target=$t" -o /dev/null
  # The wide row sum at fixed M, to time beside the run-time-M kernel.
  for m in 1 16 2048; do
    sed -n '/^#wide =/,$p' test/e2e/Inputs/generic-dynamic-f32.mlir |
      sed -e "s/?x/${m}x/g; s/tensor.empty(%m)/tensor.empty()/" \
          -e '/%m = tensor.dim/d' > "$art/rowsum-wide-$m.mlir"
    rm -rf "$art/static/$t-$m"
    "$opt" "$art/rowsum-wide-$m.mlir" \
      --llm-schedule="artifacts-dir=$art/static/$t-$m measure=off target=$t" -o /dev/null
  done
done
