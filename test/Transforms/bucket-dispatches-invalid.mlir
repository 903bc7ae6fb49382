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

// -----

// A generic dispatch whose tensors disagree on their run-time sizes: a
// broadcast of [S, 64] over a run-time batch.
#bcast = affine_map<(b, s, n) -> (s, n)>
#id3 = affine_map<(b, s, n) -> (b, s, n)>
func.func @broadcast_batch(%x: tensor<?x64xf32>, %init: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  // expected-error @+1 {{a generic dispatch over run-time sizes needs as many of them in every argument and result that has any, but 'tensor<?x?x64xf32>' has 2, not 1}}
  %r = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%x : tensor<?x64xf32>) outs(%init : tensor<?x?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// A generic dispatch that swaps its two run-time sizes: each tensor's
// first dynamic size would no longer be one size.
#keep = affine_map<(b, s, n) -> (b, s, n)>
#swap = affine_map<(b, s, n) -> (s, b, n)>
func.func @swap_sizes(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  %e = tensor.empty(%s, %b) : tensor<?x?x64xf32>
  // expected-error @+1 {{run-time sizes must keep their order in every operand; operand 1 reads loop 1 at another position}}
  %r = linalg.generic {indexing_maps = [#keep, #swap], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%x : tensor<?x?x64xf32>) outs(%e : tensor<?x?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}
