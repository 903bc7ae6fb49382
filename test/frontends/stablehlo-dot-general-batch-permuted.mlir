// StableHLO -> linalg (stablehlo-opt --stablehlo-legalize-to-linalg
// --canonicalize): a stablehlo.dot_general whose batch dimension is NOT the
// leading dim of either operand:
//   lhs [M, B, K]  (lhs_batching_dimensions = [1], lhs_contracting = [2])
//   rhs [N, K, B]  (rhs_batching_dimensions = [2], rhs_contracting = [1])
//   out [B, M, N]
// The legalization emits a single 4-loop linalg.generic (B, M, N parallel,
// K reduction) with permuted operand maps rather than a named batch_matmul.
//
// Source:   https://github.com/openxla/stablehlo
//           commit 3c9301c116f97fbaf696959a0ede32712aec587b
//           stablehlo/conversions/linalg/tests/dot-product.mlir, @dot_general
//           (the stablehlo input is in that file; the linalg below is the
//           output its CHECK lines pin down: maps (d1, d0, d3), (d2, d3, d0),
//           (d0, d1, d2), tensor.empty + linalg.fill + linalg.generic with
//           mulf/addf body carrying the discardable {someattr} through)
// Changes:
//   - dynamic tensor<?x?x?xf32> operands made static: B=4, M=32, K=64,
//     N=48, i.e. lhs 32x4x64, rhs 48x64x4, result 4x32x48 (so the
//     tensor.dim ops of the dynamic CHECK disappear and tensor.empty() has
//     no operands, as the pass emits for static shapes).
//   - written as the CHECK lines describe; SSA names are mlir-opt's.
//
// Pattern notes: batch dim in the middle of LHS and last in RHS; contraction
// over RHS dim 1 (RHS is effectively [N, K] per batch, i.e. transposed);
// fill(0) init; generic body accumulates as  out + a*b  (addf operand order
// reversed vs. torch-mlir's a*b + out); extra unit attribute on the generic.
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


#map = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @dot_general(%arg0: tensor<32x4x64xf32>, %arg1: tensor<48x64x4xf32>) -> tensor<4x32x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x32x48xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x32x48xf32>) -> tensor<4x32x48xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<32x4x64xf32>, tensor<48x64x4xf32>) outs(%1 : tensor<4x32x48xf32>) attrs =  {someattr} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<4x32x48xf32>
    return %2 : tensor<4x32x48xf32>
  }
}
