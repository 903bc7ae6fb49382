// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --split-input-file | FileCheck %s

// The FFMA kernel's K-tiles on its 128x128 tile (8x8 per thread): 32 in
// two stages where an operand is staged with 16-byte copies (its rows run
// along M or N), 16 in three (the op's defaults, not printed) where both
// are K-contiguous and take 4-byte copies.

// B stored [K, N]: 16-byte copies.
// CHECK-LABEL: transform.named_sequence @nn_d0
//       CHECK:     transform.tune.knob<"block_m"> = 128
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {block_k = 32 : i64, stages = 2 : i64} :
func.func @nn(%a: tensor<2048x1024xf32>, %b: tensor<1024x2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2048x1024xf32>, tensor<1024x2048xf32>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}

// -----

// A stored [K, M] and B stored [N, K]: A's copies are 16-byte.
// CHECK-LABEL: transform.named_sequence @tt_d0
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {block_k = 32 : i64, stages = 2 : i64} :
func.func @tt(%a: tensor<1024x2048xf32>, %b: tensor<2048x1024xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<1024x2048xf32>, tensor<2048x1024xf32>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}

// -----

// A stored [M, K] and B stored [N, K] (nn.Linear): both K-contiguous.
// CHECK-LABEL: transform.named_sequence @nt_d0
//       CHECK:     transform.tune.knob<"block_m"> = 128
//   CHECK-NOT:     block_k
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} :
func.func @nt(%a: tensor<2048x1024xf32>, %b: tensor<2048x1024xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<2048x1024xf32>, tensor<2048x1024xf32>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}

// -----

// Smaller tiles (64x64, 4x4 per thread) keep 16 in three.
// CHECK-LABEL: transform.named_sequence @small_d0
//       CHECK:     transform.tune.knob<"block_m"> = 64
//   CHECK-NOT:     block_k
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {thread_tile = array<i64: 4, 4>} :
func.func @small(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %c = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %c : tensor<512x512xf32>
}

// -----

// K under two tiles of 32: 32-deep tiles would be mostly zero fill.
// CHECK-LABEL: transform.named_sequence @short_k_d0
//       CHECK:     transform.tune.knob<"block_m"> = 128
//   CHECK-NOT:     block_k
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} :
func.func @short_k(%a: tensor<2048x48xf32>, %b: tensor<48x2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2048x48xf32>, tensor<48x2048xf32>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}
