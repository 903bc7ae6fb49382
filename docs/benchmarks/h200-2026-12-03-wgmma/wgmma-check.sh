#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# sm_90a wgmma path on the bf16 shapes it takes, compiled there, verified
# and timed beside cuBLAS and eager PyTorch; the SASS of one kernel (HGMMA,
# TMA loads, mbarrier syncs) and a compute-sanitizer memcheck of a ragged
# wgmma GEMM. Usage: docs/benchmarks/h200-2026-12-03-wgmma/wgmma-check.sh OUTDIR [ONLY-regex]
set -uo pipefail
dest=${1:?output directory}
only=${2:-'l1_square|l1_standard|l1_trans_b|l1_small_k|l2_bias|l2_scale|a_cube|a_tiny_k'}
work=/tmp/wg
mkdir -p "$dest" "$work"
source utils/gpu/env.sh
python3 python/bench/bench.py compile --out "$work" --dtypes bf16 --only "$only" \
  --target sm_90a --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
tail -3 "$dest/compile.log"
python3 python/bench/bench.py run --out "$work" --dtypes bf16 --only "$only" \
  --vibegemm-run build/bin/vibegemm-run --run-timeout 120 --no-compile-torch \
  --time-budget "${TIME_BUDGET:-300}" 2>&1 | tee "$dest/run.log"
python3 python/bench/bench.py report --out "$work" --dest "$dest/report" \
  --reproduce "bash docs/benchmarks/h200-2026-12-03-wgmma/wgmma-check.sh OUTDIR '$only'" > /dev/null 2>&1
ptx=$(ls "$work"/*/artifacts/*_d0.ptx 2>/dev/null | head -1)
if [ -n "$ptx" ]; then
  ptxas -arch=sm_90a -v "$ptx" -o /tmp/wg.cubin 2>&1 | grep -E "registers|spill"
  cuobjdump -sass /tmp/wg.cubin |
    grep -oE "HGMMA\.[0-9A-Za-z]+|UTMALDG[.0-9A-Z]*|SYNCS[.A-Z]*|USETMAXREG[.A-Z]*" |
    sort | uniq -c | sed "s|^|$(basename "$ptx"): |" | tee "$dest/sass-mix.txt"
fi
bash utils/gpu/wgmma-edges.sh "$dest"
