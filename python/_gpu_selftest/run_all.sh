#!/bin/bash
# GPU self-test of vibegemm_run_plan.py; run from the repository root.
cd "$(dirname "$0")"
T=../vibegemm_run_plan.py
R=../references
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import cupy, numpy, torch; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__)"
python3 -c "import ml_dtypes; print('ml_dtypes', ml_dtypes.__version__)"
nvcc --version | tail -1
nvcc -ptx -arch=sm_90a kernels.cu -o kernels.ptx || exit 1
sed 's/fma.rn.f32/fma.rn.bogus32/' kernels.ptx > bad.ptx
head -20 kernels.ptx | grep -E "version|target"
python3 gen_plans.py
run() { echo; echo "=== $*"; timeout 300 python3 "$@"; echo "exit=$?"; }
(cd .. && python3 -m unittest test_run_plan_dryrun 2>&1 | tail -3)
run $T gemm_f32.plan.json --reference $R/gemm_f32.py --dry-run --seed 1
run $T gemm_f32.plan.json --reference $R/gemm_f32.py --seed 1 --iters 20 --warmup 3 --compare-cublas 4096 4096 4096 --json $OUT/gemm_f32.json
run $T gelu_bf16.plan.json --reference $R/gemm_bias_gelu_bf16.py --iters 10 --warmup 2 --compare-cublas 1024 8192 8192 --b-transposed --json $OUT/gelu.json
run $T mlp_f16.plan.json --reference $R/mlp_block_f16.py --seed 5 --ref-device cpu --compare-cublas 512 1024 4096 --json $OUT/mlp.json
run $T mlp_f16.plan.json --reference $R/mlp_block_f16.py --seed 5 --no-spin --iters 50
run $T wrong.plan.json --reference $R/gemm_f32.py --seed 2 --iters 5
run $T guard.plan.json --reference $R/gemm_f32.py --seed 2 --iters 0 --json $OUT/guard.json
run $T fault.plan.json --reference $R/gemm_f32.py --seed 2 --sync-each-launch --json $OUT/fault.json
run $T badptx.plan.json --reference $R/gemm_f32.py --seed 2
run $T small.plan.json --seed 3 --iters 5
run $T small.plan.json --reference legacy_ref.py --seed 3 --iters 5 --compare-cublas 256 256 256 --batch 4 --dtype f16
echo; echo "=== gpu-side bf16 helpers vs ml_dtypes"
python3 - <<'PY'
import sys; sys.path.insert(0, '..')
import numpy as np, cupy as cp, vibegemm_run_plan as v
import ml_dtypes
x = (np.random.default_rng(0).standard_normal(1 << 20) * 50).astype(np.float32)
g = cp.asnumpy(v.f32_to_bf16_bits(cp, cp.asarray(x)))
h = x.astype(ml_dtypes.bfloat16).view(np.uint16)
print('bf16 gpu==ml_dtypes', np.array_equal(g, h))
back = cp.asnumpy(v.bf16_bits_to_f32(cp, cp.asarray(h)))
print('widen ok', np.array_equal(back, h.view(ml_dtypes.bfloat16).astype(np.float32)))
PY
echo; echo "=== hang (last: it may upset the GPU)"
run $T hang.plan.json --reference $R/gemm_f32.py --seed 2 --timeout 5
ls -la $OUT
