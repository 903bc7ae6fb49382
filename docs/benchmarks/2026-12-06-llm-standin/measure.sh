#!/usr/bin/env bash
# Runs on the GPU machine (repo root; build/bin/vibegemm-run and its
# libraries carried, see utils/gpu/env.sh): verifies and times the built-in
# schedule and every candidate the stand-in LLM wrote (kept by
# keep-candidates=true under ART/art-<problem>/candidates), each in a child
# process on fresh inputs against the reference kernels, same clock rules.
# Usage: measure.sh OUTDIR [ART=.bench/llm]
set -uo pipefail
out=${1:?output directory}
art=${ART:-.bench/llm}
mkdir -p "$out"
for dir in "$art"/art-*/; do
  p=$(basename "$dir"); p=${p#art-}
  mkdir -p "$out/$p"
  timeout 60 build/bin/vibegemm-run --json --seed=7 --sustain-ms=200 \
    "$dir/${p}_d0.plan.json" > "$out/$p/winner.json" 2> "$out/$p/winner.err"
  for cand in "$dir"/candidates/*/; do
    i=$(basename "$cand")
    timeout 60 build/bin/vibegemm-run --json --seed=7 --sustain-ms=200 \
      "$cand/${p}_d0.plan.json" > "$out/$p/$i.json" 2> "$out/$p/$i.err"
    echo "$p $i rc=$?"
  done
done
