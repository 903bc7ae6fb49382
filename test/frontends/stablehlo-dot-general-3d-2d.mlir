// StableHLO -> linalg (stablehlo-opt --stablehlo-legalize-to-linalg
// --canonicalize): the JAX-style dense layer on a rank-3 activation,
//   stablehlo.dot_general %x [B, S, K], %w [K, N], contracting_dims = [2] x [0]
// which does not match a named op and is emitted as a 4-loop linalg.generic
// (B, S, N parallel, K reduction) -- no reshape to 2-D, no batch_matmul.
//
// Source:   https://github.com/openxla/stablehlo
//           commit 3c9301c116f97fbaf696959a0ede32712aec587b
//           stablehlo/conversions/linalg/tests/dot-product.mlir,
//           @not_simple_dot_general (maps (d0, d1, d3), (d3, d2),
//           (d0, d1, d2); iterator_types [p, p, p, r]; {someattr})
// Changes:
//   - the test's shapes 2x3x3 * 3x? were replaced by a static, less
//     degenerate 2x16x64 * 64x48 -> 2x16x48 (B=2, S=16, K=64, N=48);
//   - written as the CHECK lines describe (fill(0) init, mulf/addf body as in
//     the pass's @dot_general case); SSA names are mlir-opt's.
//
// Pattern notes: rank-3 x rank-2 contraction as a generic (the "linear on a
// 3-D input" of the JAX/StableHLO world); weight already [K, N] (no
// transpose); out + a*b accumulation order; extra unit attribute.
//
// FRONTEND-SOURCE: openxla/stablehlo@3c9301c116f97fbaf696959a0ede32712aec587b:stablehlo/conversions/linalg/tests/dot-product.mlir
//
// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4 input-scale=1.0" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX
// The compiled function against the input as written, lowered naively
// on the CPU (deterministic inputs; tolerance 1e-4).
// CPU: ok
// CPU-NEXT: 1
// CPU-NOT: ok
// PTX: gpu.binary @


#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @not_simple_dot_general(%arg0: tensor<2x16x64xf32>, %arg1: tensor<64x48xf32>) -> tensor<2x16x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x16x48xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x16x64xf32>, tensor<64x48xf32>) outs(%1 : tensor<2x16x48xf32>) attrs =  {someattr} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<2x16x48xf32>
    return %2 : tensor<2x16x48xf32>
  }
}
