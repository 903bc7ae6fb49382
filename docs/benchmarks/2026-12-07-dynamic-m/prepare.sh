#!/usr/bin/env bash
# Compiles, on any machine, what run-gpu.sh measures: up-dynamic.mlir once
# per target (one module for every M), and the same GEMM with M fixed at 1,
# 16, 128 and 2048, with the built-in scheduler (no LLM, measure=off).
# Usage: prepare.sh VIBEGEMM_OPT ART_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
opt=$1 art=$2
mkdir -p "$art"
for target in sm_90 sm_90a; do
  rm -rf "$art/dyn-$target"
  "$opt" "$here/up-dynamic.mlir" \
    --llm-schedule="artifacts-dir=$art/dyn-$target measure=off target=$target" \
    -o /dev/null
  for m in 1 16 128 2048; do
    sed -e "s/?x/${m}x/g; s/tensor.empty(%m)/tensor.empty()/" \
        -e '/%m = tensor.dim/d' "$here/up-dynamic.mlir" > "$art/up-$m.mlir"
    rm -rf "$art/static-$target-$m"
    "$opt" "$art/up-$m.mlir" \
      --llm-schedule="artifacts-dir=$art/static-$target-$m measure=off target=$target" \
      -o /dev/null
  done
done
