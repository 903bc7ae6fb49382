#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# persistent wgmma kernel against one block per tile. Races the built-in
# schedule (persistent on shapes with more tiles than SMs) against the same
# tile with one block per tile and 4 stages (the built-in before it), on
# the dense bf16 problems; then runs each persistent plan RUNS times in
# isolated children (a fault in any run is reported), and the wgmma edge
# cases (ragged, layouts, batched, bias + ReLU; verified and under memcheck).
# Needs binaries whose built-in scheduler picks the persistent kernel
# (chooseWgmmaTiling; see docs/benchmarks/h200-2026-12-04-dense-gap).
# Usage: [RUNS=10] tools/gpu/persistent-check.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source tools/gpu/env.sh
probe=/tmp/persistent-probe
python3 python/bench/bench.py compile --out "$probe" --jobs 1 --dtypes bf16 \
  --only '^l1_square' --vibegemm-opt build/bin/vibegemm-opt > /dev/null 2>&1
if ! grep -q persistent_blocks "$probe"/l1_square_bf16/artifacts/*_d0.schedule.mlir; then
  echo "persistent-check: the built-in schedule of l1_square_bf16 is not persistent;" \
       "build with chooseWgmmaTiling choosing it first" | tee "$dest/sweep.txt"
  exit 2
fi
problems=(l1_square_bf16 a_cube_8192_bf16 l1_standard_bf16 l2_bias_relu_bf16 l1_irregular_bf16)
TC_CONFIGS="128,256,2,4" timeout 400 python3 tools/gpu/tc-sweep.py "$dest/sweep" "${problems[@]}" \
  2>&1 | grep -E "cand|error" | tee "$dest/sweep.txt"
work=/tmp/persistent
python3 python/bench/bench.py compile --out "$work" --jobs 4 --dtypes bf16 \
  --only 'l1_square|a_cube_8192|l1_batched|l1_irregular|l2_' --vibegemm-opt build/bin/vibegemm-opt \
  > "$dest/compile.log" 2>&1
for dir in "$work"/*/; do
  name=$(basename "$dir")
  plan=$(ls "$dir"/artifacts/*_d0.plan.json 2>/dev/null | head -1)
  [ -n "$plan" ] || continue
  grep -q persistent_blocks "$dir"/artifacts/*_d0.schedule.mlir || continue
  ok=0; bad=""
  for i in $(seq "${RUNS:-10}"); do
    out=$(timeout 120 build/bin/vibegemm-run --json --sustain-ms 0 --seed "$i" "$plan" 2>&1)
    if echo "$out" | grep -q '"status": *"ok"'; then ok=$((ok + 1)); else bad="$bad | run $i: $(echo "$out" | tail -c 300 | tr '\n' ' ')"; fi
  done
  echo "$name: $ok of ${RUNS:-10} runs verified$bad"
done | tee "$dest/runs.txt"
bash tools/gpu/wgmma-edges.sh "$dest/edges" > /dev/null 2>&1
cp "$dest/edges/edges.txt" "$dest/edges.txt" 2>/dev/null
cat "$dest/edges.txt"
