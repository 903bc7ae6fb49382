#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying build/bin, build/gpu and
# .dist/vibegemm-libs.tar.xz). STEP=loop: the tuner on loop.mlir with
# measure=on, 3 rounds of 4 candidates, the model answered from replies/
# by utils/llm/replay-provider.py; prompts with no recorded reply are kept
# in OUT/unanswered for a stand-in to answer before the next call. DB=FILE:
# start from that tuning database (an earlier call's), whose verified
# kernels are not run again (reuse-measurements). measure-timeout=20: a
# kernel that hangs (none should; the ping-pong-in-clusters scripts have
# never run on a GPU) costs 20 s of the call, not 60.
# STEP=ab: the built-in plans before (build/gpu/ab-a) and after
# (build/gpu/ab-b) the decode policy change, timed alternately beside cuBLAS
# and eager. STEP=pdl: the after plans against the same with programmatic
# launches (build/gpu/pdl). prepare.sh compiles the plans.
# Usage: STEP=loop|ab|pdl run-gpu.sh OUT
set -uo pipefail
out=${1:?output directory}
here=docs/benchmarks/2026-12-07-llm-loop
mkdir -p "$out"
source utils/gpu/env.sh
nvidia-smi -L > "$out/gpu.txt"
case ${STEP:?loop or ab} in
loop)
  [ -n "${DB:-}" ] && cp "$DB" "$out/tuning.db"
  printf '#!/bin/sh\nexec python3 %s/utils/llm/replay-provider.py %s/%s/replies --log %s/requests.jsonl --record %s/unanswered\n' \
    "$PWD" "$PWD" "$here" "$PWD/$out" "$PWD/$out" > "$out/provider"
  chmod +x "$out/provider"
  timeout "${LIMIT:-540}" build/bin/vibegemm-opt "$here/loop.mlir" \
    --llm-schedule="endpoint=command:$PWD/$out/provider model=stand-in rounds=3 patience=3 candidates=4 measure=on measure-timeout=20 target=sm_90a cache-dir=off db=$out/tuning.db artifacts-dir=$out/art" \
    -o "$out/loop.out.mlir" 2> "$out/loop.err"
  echo "vibegemm-opt rc=$?" >> "$out/loop.err"
  python3 "$here/tabulate.py" "$out/art/report.json" > "$out/table.md" ;;
ab|pdl)
  second=a
  [ "$STEP" = pdl ] && second=pdl
  for round in 1 2; do
    for v in b $second; do
      dir=build/gpu/ab-$v
      [ "$v" = pdl ] && dir=build/gpu/pdl
      python3 python/bench/bench.py run --out "$dir" --dtypes bf16 \
        --vibegemm-run build/bin/vibegemm-run --no-compile-torch --run-timeout 60 \
        > "$out/run-$v-$round.log" 2>&1
      cp "$dir/results.json" "$out/results-$v-$round.json"
    done
  done ;;
esac
