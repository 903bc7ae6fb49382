#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# block-reduction kernels (matrix-vector products, softmax after a GEMM) on
# ragged and misaligned shapes, batched wgmma, and wgmma on operands copied
# into padded buffers (rows not a multiple of 16 bytes), each verified on fresh
# inputs and then under compute-sanitizer memcheck; then the bench problems
# they serve, timed beside cuBLAS and eager PyTorch.
# Usage: docs/benchmarks/h200-2026-12-03-reduce/reduce-check.sh OUTDIR [ONLY-regex]
# Writes edges.txt, compile.log, run.log, kernel-times.txt and report.tar.gz
# (the bench report and the PTX).
set -uo pipefail
dest=${1:?output directory}
only=${2:-'l1_matvec|l2_gelu_softmax_bf16|l1_batched_bf16|l1_irregular_bf16'}
mkdir -p "$dest" /tmp/redge /tmp/rbench
source utils/gpu/env.sh
python3 - <<'PY'
import sys; sys.path.insert(0, "python/bench"); import problems
from problems import Problem
# (dtype, batch, M, N, K, A stored [K, M], B stored [N, K], epilogue)
cases = [("bf16", 1, 1000, 1, 4100, False, False, None),   # K % 8: element loads
         ("bf16", 1, 777, 1, 65536, False, False, None),
         ("f32", 1, 777, 1, 65536, False, False, None),
         ("f32", 1, 300, 1, 1001, False, False, None),
         ("bf16", 1, 1, 3000, 4096, False, True, None),   # vector x [N, K]
         ("bf16", 1, 512, 1, 8192, False, False, "bias_relu"),
         ("bf16", 1, 320, 1001, 512, False, True, "gelu_softmax"),  # rows of 1001
         ("bf16", 1, 256, 4096, 1024, False, True, "gelu_softmax"),
         ("f32", 1, 256, 4096, 1024, False, True, "gelu_softmax"),  # staged
         ("f32", 1, 320, 1001, 512, False, True, "gelu_softmax"),  # direct
         ("bf16", 16, 1000, 1000, 520, False, False, None),  # batched wgmma
         ("bf16", 4, 1000, 600, 256, False, False, None),
         ("bf16", 1, 2000, 1999, 1001, False, False, None),   # padded copies
         ("bf16", 1, 2000, 1999, 1001, True, True, None),
         ("bf16", 1, 2000, 1001, 1003, False, True, "bias_relu")]
for dtype, batch, m, n, k, ta, tb, epi in cases:
    layout = ("t" if ta else "n") + ("t" if tb else "n")
    p = Problem(base=f"r{batch}x{m}x{n}x{k}_{layout}" + (f"_{epi}" if epi else ""),
                level=2 if epi else 1, dtype=dtype, batch=batch, m=m, n=n, k=k,
                trans_a=ta, trans_b=tb, epilogue=epi or "none")
    open(f"/tmp/redge/{p.name}.mlir", "w").write(problems.mlir(p))
PY
# Softmax after a GEMM whose epilogue stays in f32: no bf16 rounding of the
# softmax's input, so the check sees the kernels' own error.
for shape in 512x4096x1024 320x1001x512; do
  IFS=x read -r m n k <<<"$shape"
  cat > /tmp/redge/r1x${shape}_f32mid_softmax_bf16.mlir <<MLIR
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @r1x${shape}_f32mid_softmax_bf16(%a: tensor<${m}x${k}xbf16>, %w: tensor<${n}x${k}xbf16>) -> tensor<${m}x${n}xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<${m}x${n}xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %w : tensor<${m}x${k}xbf16>, tensor<${n}x${k}xbf16>) outs(%acc : tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  %out = tensor.empty() : tensor<${m}x${n}xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<${m}x${n}xf32>) outs(%out : tensor<${m}x${n}xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<${m}x${n}xf32>
  %sm_out = tensor.empty() : tensor<${m}x${n}xf32>
  %sm = linalg.softmax dimension(1) ins(%s : tensor<${m}x${n}xf32>) outs(%sm_out : tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  return %sm : tensor<${m}x${n}xf32>
}
MLIR
done
# Attention scores: a batched GEMM, a scale and a softmax (the batched
# softmax kernels, one row per block over rows x batches).
for shape in 8x256x512x64 3x77x1001x64; do
  IFS=x read -r b m n k <<<"$shape"
  for t in bf16 f32; do
    cat > /tmp/redge/b${shape}_scores_${t}.mlir <<MLIR
func.func @b${shape}_scores_${t}(%q: tensor<${b}x${m}x${k}x${t}>, %kt: tensor<${b}x${k}x${n}x${t}>) -> tensor<${b}x${m}x${n}x${t}> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<${b}x${m}x${n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<${b}x${m}x${n}xf32>) -> tensor<${b}x${m}x${n}xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<${b}x${m}x${k}x${t}>, tensor<${b}x${k}x${n}x${t}>) outs(%f : tensor<${b}x${m}x${n}xf32>) -> tensor<${b}x${m}x${n}xf32>
  %o = tensor.empty() : tensor<${b}x${m}x${n}x${t}>
  %x = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<${b}x${m}x${n}xf32>) outs(%o : tensor<${b}x${m}x${n}x${t}>) {
  ^bb0(%v: f32, %out: ${t}):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %v, %c : f32
    $( [ $t = f32 ] && echo "%r = arith.addf %y, %zero : f32" || echo "%r = arith.truncf %y : f32 to ${t}" )
    linalg.yield %r : ${t}
  } -> tensor<${b}x${m}x${n}x${t}>
  %so = tensor.empty() : tensor<${b}x${m}x${n}x${t}>
  %sm = linalg.softmax dimension(2) ins(%x : tensor<${b}x${m}x${n}x${t}>) outs(%so : tensor<${b}x${m}x${n}x${t}>) -> tensor<${b}x${m}x${n}x${t}>
  return %sm : tensor<${b}x${m}x${n}x${t}>
}
MLIR
  done
done
bash utils/gpu/verify-edges.sh /tmp/redge "$dest/edges.txt"
python3 python/bench/bench.py compile --out /tmp/rbench --dtypes bf16,f32 --only "$only" \
  --jobs 8 --target sm_90a --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
tail -3 "$dest/compile.log"
# REDUCE_TIME=0: the edges and per-kernel times only (utils/gpu/bench.sh
# times the whole suite).
if [ "${REDUCE_TIME:-1}" = 1 ]; then
python3 python/bench/bench.py run --out /tmp/rbench --dtypes bf16,f32 --only "$only" \
  --vibegemm-run build/bin/vibegemm-run --run-timeout 120 \
  --time-budget "${TIME_BUDGET:-240}" 2>&1 | tee "$dest/run.log"
python3 python/bench/bench.py report --out /tmp/rbench --dest /tmp/rreport/report \
  --reproduce "bash docs/benchmarks/h200-2026-12-03-reduce/reduce-check.sh OUTDIR '$only'" > /dev/null 2>&1
# The device tool brings back 8 files: the report and the PTX go as one.
mkdir -p /tmp/rreport/ptx
cp /tmp/rbench/*/artifacts/*_d0.ptx /tmp/rreport/ptx/ 2>/dev/null
tar -C /tmp/rreport -czf "$dest/report.tar.gz" report ptx
fi
# Per-kernel times (the padding copies, the GEMM, the softmax) under ncu.
for name in l1_irregular_bf16 l1_matvec_bf16 l2_gelu_softmax_bf16 l2_gelu_softmax_f32; do
  plan=$(ls /tmp/rbench/$name/artifacts/*_d0.plan.json 2>/dev/null | head -1)
  [ -n "$plan" ] || continue
  echo "== $name" >> "$dest/kernel-times.txt"
  timeout 300 ncu --metrics gpu__time_duration.sum build/bin/vibegemm-run \
    --no-isolate --verify-only "$plan" 2>&1 |
    grep -E "_d0_kernel_[0-9]+|gpu__time_duration" >> "$dest/kernel-times.txt"
done
cat "$dest/kernel-times.txt" 2>/dev/null | head -60
