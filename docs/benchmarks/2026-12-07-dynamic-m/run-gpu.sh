#!/usr/bin/env bash
# On the GPU machine, from the repository root, with build/bin/vibegemm-run
# and .dist/run-libs.tar.xz carried and prepare.sh's artifacts in ART:
# verifies each dynamic module at both edges of every bucket and one past
# a tile multiple, and times it beside the static-M modules and cuBLAS.
# Usage: run-gpu.sh ART OUT
set -uo pipefail
art=$1 out=$2
source utils/gpu/env.sh
run=build/bin/vibegemm-run
nvidia-smi -L > "$out/device.txt" 2>&1
edges=1,2,16,17,64,65,128,129,256,257,1024,1025,2048,2049
for name in up kv; do
  for target in sm_90 sm_90a; do
    fn=$(basename "$art/$name-dyn-$target"/*_d0_m1_1.plan.json _d0_m1_1.plan.json)
    "$run" --json --dims "M=$edges" \
      "$art/$name-dyn-$target/$fn.plan.json" \
      > "$out/$name-dyn-$target.json" 2> "$out/$name-dyn-$target.err"
    echo "$name-dyn-$target: exit $?"
    for m in 1 16 128 2048; do
      "$run" --json --compare=cublas \
        "$art/$name-static-$target-$m/${fn}_d0.plan.json" \
        > "$out/$name-static-$target-$m.json" 2> "$out/$name-static-$target-$m.err"
      echo "$name-static-$target-$m: exit $?"
    done
  done
done
