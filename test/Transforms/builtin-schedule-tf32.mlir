// f32 GEMMs reach the TF32 tensor cores only when the user asks: with
// vibegemm-form-dispatches="f32-precision=tf32" (or 3xtf32) the dispatch is
// marked vibegemm.f32_precision, its signature says so, and the built-in
// schedule takes gemm_to_mma_sync with that f32_precision; by default the
// same GEMM takes FFMA, and bf16 GEMMs are never marked.
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches="f32-precision=tf32" --vibegemm-builtin-schedule | FileCheck %s --check-prefix=TF32
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches="f32-precision=3xtf32" --vibegemm-builtin-schedule | FileCheck %s --check-prefix=THREE
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule | FileCheck %s --check-prefix=IEEE
// RUN: not vibegemm-opt %s --split-input-file --vibegemm-form-dispatches="f32-precision=fp8" 2>&1 | FileCheck %s --check-prefix=BAD

// TF32-LABEL: func.func @square_f32_d0(
//  TF32-SAME:     vibegemm.f32_precision = "tf32"
//  TF32-SAME:     vibegemm.signature = "mm4096x4096x4096_f32_f32_NN_e0_tf32_
//       TF32: transform.named_sequence @square_f32_d0(
//       TF32:   transform.vibegemm.gemm_to_mma_sync %{{.*}} {f32_precision = "tf32"} :
// THREE-LABEL: func.func @square_f32_d0(
//  THREE-SAME:     vibegemm.f32_precision = "3xtf32"
//       THREE: transform.vibegemm.gemm_to_mma_sync %{{.*}} {f32_precision = "3xtf32"} :
// IEEE-LABEL: func.func @square_f32_d0(
//   IEEE-NOT:   f32_precision
//       IEEE: transform.vibegemm.gemm_to_ffma
//   IEEE-NOT:   f32_precision
// BAD: error: f32-precision must be ieee, tf32 or 3xtf32, not 'fp8'
func.func @square_f32(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>)
                     outs(%acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}

// -----

// TF32-LABEL: func.func @square_bf16_d0(
//   TF32-NOT:   f32_precision
//       TF32: transform.vibegemm.gemm_to_mma_sync %{{.*}} {block_k = 64 : i64, warps = array<i64: 2, 4>} :
//   TF32-NOT:   f32_precision
func.func @square_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>)
                     outs(%acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}
