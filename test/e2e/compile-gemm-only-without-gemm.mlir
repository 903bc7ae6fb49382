// RUN: vibegemm-opt %s --vibegemm-compile="gemm-only=true" | FileCheck %s

// With gemm-only, a module holding no GEMM has nothing for the GPU: it comes
// back as the host flow gave it (prepared), with no error, rather than
// failing in the scheduler for want of dispatches.
// CHECK-LABEL: func.func @row_sums
// CHECK: linalg.generic
// CHECK-NOT: gpu.binary
// CHECK-NOT: vibegemm.dispatch
func.func @row_sums(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
