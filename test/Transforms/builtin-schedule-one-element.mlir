// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --vibegemm-apply-schedules | FileCheck %s --check-prefix=APPLY

// A 1x1 output: one thread computes it all, so the direct schedule does not
// promote a per-thread C tile (there is none once the tiles fold away, and
// the script would fail to apply).
// CHECK-LABEL: transform.named_sequence @dot_d0(
//   CHECK-NOT:   transform.structured.promote
//       CHECK:   transform.gpu.map_nested_forall_to_threads %{{.*}} block_dims = [1, 1, 1]
// APPLY-LABEL: func.func @dot_d0(
//       APPLY:   gpu.launch
//       APPLY:     linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : memref<1x1xbf16, {{.*}}>, memref<1x1xbf16, {{.*}}>) outs(%{{.*}} : memref<1x1xf32>)
//       APPLY:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @dot(%a: tensor<1x1xbf16>, %b: tensor<1x1xbf16>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %c = linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%a, %b : tensor<1x1xbf16>, tensor<1x1xbf16>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %c : tensor<1x1xf32>
}
