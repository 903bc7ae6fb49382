// RUN: vibegemm-opt %s --vibegemm-form-dispatches --split-input-file --verify-diagnostics

// A dynamic N: only leading dimensions (the token count M) may be dynamic.
// expected-error @+1 {{'tensor<64x?xf32>' has a dynamic innermost dimension}}
func.func @dynamic(%a: tensor<64x64xf32>, %b: tensor<64x?xf32>, %c: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x?xf32>) outs(%c : tensor<64x?xf32>) -> tensor<64x?xf32>
  return %r : tensor<64x?xf32>
}

// -----

func.func @f64(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>, %c: tensor<64x64xf64>) -> tensor<64x64xf64> {
  // expected-error @+1 {{GEMM element type 'f64' is not supported}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf64>, tensor<64x64xf64>) outs(%c : tensor<64x64xf64>) -> tensor<64x64xf64>
  return %r : tensor<64x64xf64>
}

// -----

// FP8 inputs need an f32 accumulator.
func.func @f8_into_bf16(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %c: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{GEMM element type 'f8E4M3FN' is not supported; vibegemm compiles f32, f16 and bf16 operands (f32 accumulation), and FP8 (f8E4M3FN, f8E5M2) inputs into an f32 accumulator}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>) outs(%c : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %r : tensor<64x64xbf16>
}

// -----

func.func @conv(%i: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %o: tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32> {
  // expected-error @+1 {{convolutions are not supported}}
  %r = linalg.conv_2d_nchw_fchw ins(%i, %w : tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32>
  return %r : tensor<1x8x30x30xf32>
}

// -----

// expected-error @below {{no GEMM found}}
module {
  func.func @no_gemm(%a: tensor<64xf32>) -> tensor<64xf32> {
    return %a : tensor<64xf32>
  }
}

// -----

// expected-error @+1 {{is larger than}}
func.func @absurd(%a: tensor<1000000x1000000xf32>, %b: tensor<1000000x64xf32>, %c: tensor<1000000x64xf32>) -> tensor<1000000x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1000000x1000000xf32>, tensor<1000000x64xf32>) outs(%c : tensor<1000000x64xf32>) -> tensor<1000000x64xf32>
  return %r : tensor<1000000x64xf32>
}

// -----

// expected-error @+1 {{exceeds the supported maximum}}
func.func @huge_dim(%a: tensor<64x100000000xf16>, %b: tensor<100000000x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x100000000xf16>, tensor<100000000x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @int_gemm(%a: tensor<64x64xi32>, %b: tensor<64x64xi32>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  // expected-error @+1 {{GEMM element type 'i32' is not supported}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xi32>, tensor<64x64xi32>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %r : tensor<64x64xi32>
}

// -----

// Element types that are not numbers of a width are refused, not measured.
// expected-error @+1 {{element type 'index' is not supported}}
func.func @index_elements(%a: tensor<4xindex>) -> tensor<4xindex> {
  return %a : tensor<4xindex>
}

// -----

// expected-error @+1 {{element type 'complex<f32>' is not supported}}
func.func @complex_gemm(%a: tensor<8x8xcomplex<f32>>, %b: tensor<8x8xcomplex<f32>>, %c: tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xcomplex<f32>>, tensor<8x8xcomplex<f32>>) outs(%c : tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>>
  return %r : tensor<8x8xcomplex<f32>>
}

// -----

// A GEMM with K = 0 has nothing to compute (and would tile by zero).
// expected-error @+1 {{tensor 'tensor<16x0xf32>' is empty; every dimension must be at least 1}}
func.func @empty_k(%a: tensor<16x0xf32>, %b: tensor<0x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x0xf32>, tensor<0x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// Only dispatches vibegemm formed may carry its dispatch attribute.
// expected-error @+1 {{function @g_d0 is marked vibegemm.dispatch but is not a dispatch vibegemm formed}}
func.func @g_d0(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {vibegemm.dispatch} {
  %r = linalg.matmul {vibegemm.role = "root"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @memref_gemm(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{vibegemm compiles linalg on tensors; this GEMM works on memrefs}}
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// Rows of blocks run along grid y (at most 65535 of at most 128 rows).
func.func @too_tall(%a: tensor<16777216x64xf16>, %b: tensor<64x64xf16>, %c: tensor<16777216x64xf32>) -> tensor<16777216x64xf32> {
  // expected-error @+1 {{M = 16777216 is more rows than a launch covers (65535 blocks along grid y of at most 128 rows); split the GEMM along M}}
  %r = linalg.matmul ins(%a, %b : tensor<16777216x64xf16>, tensor<64x64xf16>) outs(%c : tensor<16777216x64xf32>) -> tensor<16777216x64xf32>
  return %r : tensor<16777216x64xf32>
}

// -----

func.func @too_many_batches(%a: tensor<65536x16x8xf32>, %b: tensor<65536x8x16xf32>, %c: tensor<65536x16x16xf32>) -> tensor<65536x16x16xf32> {
  // expected-error @+1 {{a batch of 65536 is more than a launch covers (65535 blocks along grid z); split the batch}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<65536x16x8xf32>, tensor<65536x8x16xf32>) outs(%c : tensor<65536x16x16xf32>) -> tensor<65536x16x16xf32>
  return %r : tensor<65536x16x16xf32>
}
// -----

// An op with no generic kernel is refused by name.
func.func @pad(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<66x64xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' is not part of any GEMM dispatch, and vibegemm has no generic kernel for it}}
  %p = tensor.pad %a low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<64x64xf32> to tensor<66x64xf32>
  return %r, %p : tensor<64x64xf32>, tensor<66x64xf32>
}

// -----

func.func @baked_weights(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{tensor constants with data (weights baked into the IR) are not supported; pass them as function arguments}}
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = linalg.matmul ins(%a, %w : tensor<4x2xf32>, tensor<2x2xf32>) outs(%f : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
