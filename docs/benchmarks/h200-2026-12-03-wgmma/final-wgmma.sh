#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# closing run of the wgmma work. First the ragged wgmma edge cases, verified
# and under compute-sanitizer memcheck (utils/gpu/wgmma-edges.sh),
# then the whole bf16 suite compiled for sm_90a and timed beside cuBLAS,
# eager PyTorch and torch.compile, and the SASS mix of the 4096^3 kernel.
# Usage: docs/benchmarks/h200-2026-12-03-wgmma/final-wgmma.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source utils/gpu/env.sh
bash utils/gpu/wgmma-edges.sh "$dest"
work=/tmp/final
python3 python/bench/bench.py compile --out "$work" --dtypes bf16 --target sm_90a \
  --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
tail -1 "$dest/compile.log"
python3 python/bench/bench.py run --out "$work" --dtypes bf16 \
  --vibegemm-run build/bin/vibegemm-run --run-timeout 120 \
  --time-budget "${TIME_BUDGET:-330}" 2>&1 | tee "$dest/run.log"
python3 python/bench/bench.py report --out "$work" --dest "$dest/report" \
  --reproduce "bash docs/benchmarks/h200-2026-12-03-wgmma/final-wgmma.sh OUTDIR" > /dev/null 2>&1
ptx=$work/l1_square_bf16/artifacts/l1_square_bf16_d0.ptx
ptxas -arch=sm_90a -v "$ptx" -o /tmp/sq.cubin 2>&1 | grep -E "registers|spill"
cuobjdump -sass /tmp/sq.cubin |
  grep -oE "HGMMA\.[0-9A-Za-z]+|UTMALDG[.0-9A-Z]*|SYNCS[.A-Z]*|USETMAXREG[.A-Z]*" |
  sort | uniq -c | tee "$dest/sass-mix.txt"
