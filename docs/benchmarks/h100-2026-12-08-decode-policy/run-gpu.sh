# One GPU call (H100, 2026-12-08): bf16 chains and anchors, max-autotune beside three rows, then level-1 rows as time allowed.
source utils/gpu/env.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit,driver_version --format=csv > $OUT/smi.csv
(while sleep 10; do cp out-suite/results.json $OUT/suite-results.json 2>/dev/null; cp out-mat/results.json $OUT/mat-results.json 2>/dev/null; done) &
run="python3 python/bench/bench.py run --vibegemm-run build/bin/vibegemm-run --run-timeout 45"
$run --out out-suite --dtypes bf16 --only '^a_|^l2_' --no-max-autotune --time-budget 130 > $OUT/suite-a.log 2>&1
cp out-suite/results.json $OUT/suite-results.json
$run --out out-mat --only 'l2_bias_relu|l2_gelu_softmax|a_decode' --time-budget 60 > $OUT/mat.log 2>&1
cp out-mat/results.json $OUT/mat-results.json
$run --out out-suite --resume --no-max-autotune --time-budget 60 > $OUT/suite-b.log 2>&1
cp out-suite/results.json $OUT/suite-results.json
tail -2 $OUT/*.log
