// RUN: vibegemm-opt %s --vibegemm-prepare --split-input-file --verify-diagnostics

// A dynamic innermost dimension is refused before any rewrite, at the
// value; only leading dimensions (a batch and the token count M) may be
// dynamic.
// expected-error @+1 {{dynamic shapes are supported in leading dimensions only (a batch and the token count M); 'tensor<64x?xf32>' has a dynamic innermost dimension}}
func.func @dynamic(%a: tensor<64x?xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%b, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Inside a function a dynamic innermost dimension may pass (frontends
// reshape [1, S, 1] into [1, S] on the way to a broadcast); a result
// with one is refused at the return.
func.func @dynamic_result(%a: tensor<64x64xf32>, %n: index) -> tensor<64x?xf32> {
  %e = tensor.empty(%n) : tensor<64x?xf32>
  // expected-error @+1 {{has a dynamic innermost dimension}}
  return %e : tensor<64x?xf32>
}

// -----

// Three dynamic dimensions: at most a batch and the token count.
// expected-error @+1 {{'tensor<?x?x?x64xf32>' has 3 dynamic dimensions (at most two)}}
func.func @three_dynamic(%a: tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32> {
  return %a : tensor<?x?x?x64xf32>
}

// -----

// An accumulator that was never filled: the op reads a tensor.empty's
// undefined values as its starting point (tpp-mlir's batch-reduce GEMM test
// does this). A warning, not an error: the IR is compiled as written.
func.func @unfilled_accumulator(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-warning @+1 {{reads its init, a tensor.empty whose values are undefined}}
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
