#!/usr/bin/env bash
# Tunes the linear layers of Qwen2.5-7B (qwen2.5-7b-linears.mlir) with the
# recorded stand-in replies (replies/, answered by utils/llm/replay-provider.py
# after DELAY seconds, default 20, a model's reply time), once with the
# sequential tuner (BEFORE_OPT) and once with the concurrent one
# (AFTER_OPT), and writes wall times, tokens and winners to OUT/table.md and
# OUT/results.json. measure=off by default (no GPU); MEASURE=on, on a GPU
# machine after `source utils/gpu/env.sh`, verifies and times every
# candidate there. REPLIES=replies-v2 answers from the replies to the
# current prompts; RUNS names the runs ("before" uses BEFORE_OPT, any other
# AFTER_OPT); runs add to OUT/wall.txt, so several calls fill one table.
# Prompts that found no recorded reply are kept in OUT/<run>.unanswered.
# MODULE= tunes another module; EXTRA= adds llm-schedule options (db=...).
# Usage: [REPLIES=replies] [RUNS="after before"] run-cpu.sh BEFORE_OPT AFTER_OPT OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
before=$1 after=$2 out=$3
mkdir -p "$out"
# The sequential tuner asks for every dispatch, twins included; a twin's
# prompt differs from its first's only in the name, so it gets its replies.
set_name=${REPLIES:-replies}
replies=$out/$set_name
rm -rf "$replies" && cp -r "$here/$set_name" "$replies"
for m in 1 32 256 4096; do
  cp -r "$replies/qwen_m${m}_d1" "$replies/qwen_m${m}_d2" # v_proj as k_proj
  cp -r "$replies/qwen_m${m}_d0" "$replies/qwen_m${m}_d3" # o_proj as q_proj
  cp -r "$replies/qwen_m${m}_d4" "$replies/qwen_m${m}_d5" # up_proj as gate_proj
done
common="model=stand-in rounds=3 candidates=4 measure=${MEASURE:-off} target=sm_90a cache-dir=off ${EXTRA:-}"
for run in ${RUNS:-after before}; do
  opt=$after
  [ "$run" = before ] && opt=$before
  rm -f "$out/$run.requests.jsonl" "$out/$run.state"
  printf '#!/bin/sh\nexec python3 %s/utils/llm/replay-provider.py %s --delay %s --log %s --state %s --record %s\n' \
    "$root" "$replies" "${DELAY:-20}" "$out/$run.requests.jsonl" \
    "$out/$run.state" "$out/$run.unanswered" > "$out/$run.provider"
  chmod +x "$out/$run.provider"
  start=$(date +%s.%N)
  "$opt" "${MODULE:-$here/qwen2.5-7b-linears.mlir}" \
    --llm-schedule="endpoint=command:$out/$run.provider $common artifacts-dir=$out/$run" \
    -o "$out/$run.mlir" 2> "$out/$run.err"
  end=$(date +%s.%N)
  python3 -c "import sys; print(sys.argv[1], round(float(sys.argv[3]) - float(sys.argv[2]), 1), sys.argv[4])" \
    "$run" "$start" "$end" "$set_name" >> "$out/wall.txt"
done
python3 "$here/summarize.py" "$out" > "$out/table.md"
cat "$out/table.md"
