#!/usr/bin/env bash
# On the GPU machine, from the repository root, carrying build/bin/vibegemm-run,
# .dist/run-libs.tar.xz and prepare.sh's ART: runs every plan at sizes that
# reach every bucket (both edges where B * S allows), each verified against
# the reference kernels, one JSON per sweep into OUT.
# Usage: run-gpu.sh ART OUT
set -uo pipefail
art=$1 out=$2
source utils/gpu/env.sh
run=build/bin/vibegemm-run
nvidia-smi -L > "$out/device.txt" 2>&1
for t in sm_90 sm_90a; do
  "$run" --json --dim B=3 --dims S=1,5,6,22,100,341,342,700 "$art/batch/$t/kv_proj.plan.json" > "$out/batch-$t.json"
  "$run" --json --dim B=1 --dim S=1 "$art/batch/$t/kv_proj.plan.json" > "$out/batch1-$t.json"
  "$run" --json --dim B=8 --dims S=128,512 "$art/batch/$t/kv_proj.plan.json" > "$out/batch8-$t.json"
  "$run" --json --dims M=1,2,16,17,64,65,129,256,257,1024,1025,3000 "$art/scores/$t/scores.plan.json" > "$out/scores-$t.json"
done
