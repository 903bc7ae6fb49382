#!/usr/bin/env bash
# Runs on the GPU machine (repo root, build/bin/vibegemm-run and .dist's
# libraries carried; utils/gpu/env.sh): verifies and times every candidate
# the after-run kept (keep-candidates=true, compiled here without a GPU and
# packed as candidates.tar.xz), each in a child vibegemm-run on fresh inputs
# against its reference, with cuBLAS timed on the same GEMM in the same run.
# Results go to OUT/<dispatch>-<index>.json; a run past 45 s is killed.
# Usage: measure-gpu.sh CANDIDATES_TAR OUT
set -uo pipefail
tarball=$1 out=$2
work=$(mktemp -d)
tar -C "$work" -xJf "$tarball"
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$out/gpu.txt" 2>&1
for dir in "$work"/candidates/*/; do
  id=$(basename "$dir")
  plan=$(ls "$dir"/*.plan.json | grep -v reference | head -1)
  timeout 45 build/bin/vibegemm-run --json --seed=7 --sustain-ms=200 \
    --compare=cublas --timeout=20 "$plan" > "$out/$id.json" 2> "$out/$id.err"
  echo "$id rc=$?" >> "$out/index.txt"
done
