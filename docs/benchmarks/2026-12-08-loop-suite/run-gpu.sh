#!/usr/bin/env bash
# One GPU call of the 2026-12-08 run: the LLM loop (2026-12-07-llm-loop's
# STEP=loop) for LOOP_LIMIT seconds, then the benchmark suite in out-suite
# (bf16 rows first, every column, max-autotune included; then f32) until
# SUITE_BUDGET. PDL=1 times programmatic launches between the two.
# DB=FILE starts the loop from an earlier call's tuning database; RESUME=1
# keeps the suite rows out-suite/results.json holds.
# Results are copied into $OUT every 15 s, so a call cut off still returns
# what it finished. Carries build/bin, .dist and out-suite.
# Usage: CALL=1 LOOP_LIMIT=280 SUITE_BUDGET=220 run-gpu.sh
set -uo pipefail
: "${OUT:?set by the device tool}"
call=${CALL:?call number}
source utils/gpu/env.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit,driver_version \
  --format=csv > "$OUT/smi-$call.csv"
mkdir -p out/logs
snapshot() {
  tar -C out --exclude='*.ptx' --exclude='*.cubin' -cJf "$OUT/loop$call.tar.xz.tmp" "loop$call" logs 2>/dev/null &&
    mv "$OUT/loop$call.tar.xz.tmp" "$OUT/loop$call.tar.xz"
  cp out-suite/results.json "$OUT/suite-results-$call.json" 2>/dev/null
}
(while sleep 15; do snapshot; done) &
copier=$!
DB=${DB:-} STEP=loop LIMIT=${LOOP_LIMIT:-280} \
  bash docs/benchmarks/2026-12-07-llm-loop/run-gpu.sh "out/loop$call" > out/logs/loop$call.log 2>&1
# PDL=1: the built-in plans with and without programmatic launches
# (2026-12-07-llm-loop's STEP=pdl, plans from its prepare.sh in build/gpu).
if [ "${PDL:-0}" = 1 ]; then
  STEP=pdl bash docs/benchmarks/2026-12-07-llm-loop/run-gpu.sh out/pdl > out/logs/pdl.log 2>&1
  cp out/pdl/results-*.json out/logs/ 2>/dev/null
fi
resume=
[ "${RESUME:-0}" = 1 ] && resume=--resume
run="python3 python/bench/bench.py run --vibegemm-run build/bin/vibegemm-run --run-timeout 45 --out out-suite"
start=$SECONDS
$run --dtypes bf16 $resume --time-budget "${SUITE_BUDGET:-220}" > out/logs/suite-bf16-$call.log 2>&1
left=$(( ${SUITE_BUDGET:-220} - (SECONDS - start) ))
[ "$left" -gt 20 ] && $run --dtypes f32 --resume --time-budget "$left" > out/logs/suite-f32-$call.log 2>&1
kill $copier
snapshot
tail -n 3 "out/loop$call/loop.err" out/logs/*.log
