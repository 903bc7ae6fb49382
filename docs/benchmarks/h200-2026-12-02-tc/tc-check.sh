#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# benchmark suite restricted to DTYPES (default bf16), compiled there with the
# built-in scheduler (tensor cores for f16/bf16), verified and timed beside
# cuBLAS, eager PyTorch and torch.compile; plus the SASS instruction mix of
# one kernel. Usage: docs/benchmarks/h200-2026-12-02-tc/tc-check.sh OUTDIR [ONLY-regex]
set -uo pipefail
dest=${1:?output directory}
only=${2:-}
work=/tmp/tc
mkdir -p "$dest" "$work"
source utils/gpu/env.sh
sel=(--dtypes "${DTYPES:-bf16}")
[ -n "$only" ] && sel+=(--only "$only")
python3 python/bench/bench.py compile --out "$work" "${sel[@]}" \
  --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
tail -3 "$dest/compile.log"
python3 python/bench/bench.py run --out "$work" "${sel[@]}" \
  --vibegemm-run build/bin/vibegemm-run --run-timeout 120 \
  --time-budget "${TIME_BUDGET:-400}" 2>&1 | tee "$dest/run.log"
python3 python/bench/bench.py report --out "$work" --dest "$dest/report" \
  --reproduce "DTYPES=${DTYPES:-bf16} bash docs/benchmarks/h200-2026-12-02-tc/tc-check.sh OUTDIR '$only'" \
  > /dev/null 2>&1
ptx=$(ls "$work"/*/artifacts/*.ptx 2>/dev/null | grep -v reference | head -1)
if [ -n "$ptx" ]; then
  ptxas -arch=sm_90 -v "$ptx" -o /tmp/tc.cubin 2>&1 | grep -E "registers|spill" | head -4
  cuobjdump -sass /tmp/tc.cubin | grep -oE "HMMA[.A-Z0-9]*|LDGSTS[.A-Z0-9]*|LDSM[.A-Z0-9]*" |
    sort | uniq -c | sed "s|^|$(basename "$ptx"): |"
fi
