#!/usr/bin/env bash
# Compiles, on any machine, what run-gpu.sh measures: each dynamic-M module
# (up-dynamic.mlir, kv-dynamic.mlir) once per target, one module for every
# M, and the same GEMM with M fixed at 1, 16, 128 and 2048, with the
# built-in scheduler (no LLM, measure=off).
# Usage: prepare.sh VIBEGEMM_OPT ART_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
opt=$1 art=$2
mkdir -p "$art"
for name in up kv; do
  for target in sm_90 sm_90a; do
    rm -rf "$art/$name-dyn-$target"
    "$opt" "$here/$name-dynamic.mlir" \
      --llm-schedule="artifacts-dir=$art/$name-dyn-$target measure=off target=$target" \
      -o /dev/null
    for m in 1 16 128 2048; do
      sed -e "s/?x/${m}x/g; s/tensor.empty(%m)/tensor.empty()/" \
          -e '/%m = tensor.dim/d' "$here/$name-dynamic.mlir" > "$art/$name-$m.mlir"
      rm -rf "$art/$name-static-$target-$m"
      "$opt" "$art/$name-$m.mlir" \
        --llm-schedule="artifacts-dir=$art/$name-static-$target-$m measure=off target=$target" \
        -o /dev/null
    done
  done
done
