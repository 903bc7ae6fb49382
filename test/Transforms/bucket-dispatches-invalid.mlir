// vibegemm-bucket-dispatches refuses, at the op, dynamic sizes other than
// a GEMM's M, and bad bucket boundaries.

// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-bucket-dispatches --split-input-file --verify-diagnostics
// RUN: not vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-bucket-dispatches="bucket-sizes=16,4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER

// ORDER: error: bucket-sizes must increase from at least 1 and stay below 1048560

// A dynamic K (A stored [K, M], B [K, N]): vibegemm tiles K statically.
#mAt = affine_map<(m, n, k) -> (k, m)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @dynamic_k(%a: tensor<?x64xf32>, %b: tensor<?x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  // expected-error @+1 {{only M may be dynamic: this GEMM's K is dynamic}}
  %r = linalg.matmul indexing_maps = [#mAt, #mB, #mC]
         ins(%a, %b : tensor<?x64xf32>, tensor<?x32xf32>)
         outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A dynamic batch.
func.func @dynamic_batch(%a: tensor<?x8x64xf32>, %b: tensor<?x64x32xf32>) -> tensor<?x8x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x32xf32>) -> tensor<?x8x32xf32>
  // expected-error @+1 {{a dynamic batch is not supported yet; only M may be dynamic}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x8x64xf32>, tensor<?x64x32xf32>)
         outs(%f : tensor<?x8x32xf32>) -> tensor<?x8x32xf32>
  return %r : tensor<?x8x32xf32>
}
