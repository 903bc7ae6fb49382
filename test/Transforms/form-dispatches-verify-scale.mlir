// RUN: vibegemm-opt %s --vibegemm-form-dispatches --split-input-file | FileCheck %s

// Before a softmax, verification draws the GEMM's operands at 0.5 * K^-1/4
// (K = 256: 0.125), so the softmax's input is O(1) and well-conditioned.
// CHECK-LABEL: func.func @gemm_softmax_d0(
//  CHECK-SAME:   %{{.*}}: tensor<16x256xbf16> {vibegemm.verify_scale = 1.250000e-01 : f64}
//  CHECK-SAME:   %{{.*}}: tensor<256x64xbf16> {vibegemm.verify_scale = 1.250000e-01 : f64}
//       CHECK:   linalg.softmax
func.func @gemm_softmax(%a: tensor<16x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x256xbf16>, tensor<256x64xbf16>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %out = tensor.empty() : tensor<16x64xf32>
  %s = linalg.softmax dimension(1) ins(%c : tensor<16x64xf32>) outs(%out : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %s : tensor<16x64xf32>
}

// -----

// Without a softmax the operands keep the full range.
// CHECK-LABEL: func.func @gemm_d0(
//   CHECK-NOT:   vibegemm.verify_scale
//       CHECK:   linalg.matmul
func.func @gemm(%a: tensor<16x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x256xbf16>, tensor<256x64xbf16>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %c : tensor<16x64xf32>
}
