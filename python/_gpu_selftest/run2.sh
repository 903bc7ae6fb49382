#!/bin/bash
cd "$(dirname "$0")"
T=../vibegemm_run_plan.py
R=../references
OUT=${OUT:-/tmp/out}
nvcc -ptx -arch=sm_90a kernels.cu -o kernels.ptx || exit 1
sed 's/fma.rn.f32/fma.rn.bogus32/' kernels.ptx > bad.ptx
python3 gen_plans.py
run() { echo; echo "=== $*"; local t0=$(date +%s.%N); timeout 90 python3 "$@"; echo "exit=$? wall=$(echo "$(date +%s.%N) - $t0" | bc)"; }
run $T fault.plan.json --reference $R/gemm_f32.py --seed 2 --sync-each-launch --json $OUT/fault.json
run $T fault.plan.json --reference $R/gemm_f32.py --seed 2
run $T badptx.plan.json --reference $R/gemm_f32.py --seed 2
run $T mlp_f16.plan.json --reference $R/mlp_block_f16.py --seed 5 --compare-cublas 512 1024 4096 --json $OUT/mlp.json
run $T small.plan.json --reference $R/gemm_f32.py --seed 3 --compare-cublas 256 256 256 --json $OUT/small.json
run $T small.plan.json --reference $R/gemm_f32.py --seed 3 --no-spin --compare-cublas 256 256 256
run $T hang.plan.json --reference $R/gemm_f32.py --seed 2 --timeout 5 --json $OUT/hang.json
echo "=== after hang: GPU still usable?"
run $T small.plan.json --reference $R/gemm_f32.py --seed 3 --iters 3
python3 -c "
import json
for f in ['mlp','small']:
    d=json.load(open('$OUT/'+f+'.json'))
    for k in ('timing','cublas'):
        t=d[k]; print(f,k,{x:t.get(x) for x in ('median_ms','spin_ms','host_enqueue_ms','host_bound')})
"
