#!/usr/bin/env bash
# Runs the benchmark suite on the GPU machine (repo root, carrying .dist and
# build/bin): compiles every problem with vibegemm-opt there, times vibegemm,
# cuBLAS, eager and torch.compile, and writes the report to OUTDIR.
# A GPU command may run 10 minutes, so the run stops starting problems after
# TIME_BUDGET seconds; run it again with RESUME=FILE (a previous results.json)
# to finish on the same machine.
# Usage: utils/gpu/bench.sh OUTDIR  [TIME_BUDGET=420] [RESUME=results.json]
#        [DTYPES=f32,bf16] [JOBS=8 compiles at a time] [ONLY=regex on names]
#        [COMPILE_TORCH=0: no torch.compile or max-autotune column]
#        [MAX_AUTOTUNE=0: no max-autotune column (it compiles for minutes)]
set -uo pipefail
dest=${1:?output directory}
work=/tmp/bench
mkdir -p "$dest"
source utils/gpu/env.sh
only=()
[ -n "${ONLY:-}" ] && only=(--only "$ONLY")
torch=()
[ "${COMPILE_TORCH:-1}" = 0 ] && torch=(--no-compile-torch)
[ "${MAX_AUTOTUNE:-1}" = 0 ] && torch+=(--no-max-autotune)
python3 python/bench/bench.py compile --out "$work" --jobs "${JOBS:-8}" "${only[@]}" \
  --dtypes "${DTYPES:-f32,bf16}" \
  --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
resume=()
if [ -n "${RESUME:-}" ]; then
  cp "$RESUME" "$work/results.json"
  resume=(--resume)
fi
python3 python/bench/bench.py run --out "$work" --vibegemm-run build/bin/vibegemm-run "${only[@]}" \
  --dtypes "${DTYPES:-f32,bf16}" \
  --run-timeout 120 --time-budget "${TIME_BUDGET:-420}" "${resume[@]}" "${torch[@]}" 2>&1 |
  tee "$dest/run.log"
python3 python/bench/bench.py report --out "$work" --dest "$dest/report" \
  --reproduce "bash utils/gpu/bench.sh OUTDIR  (then RESUME=OUTDIR/report/results.json bash utils/gpu/bench.sh OUTDIR2 if the budget ran out)"
