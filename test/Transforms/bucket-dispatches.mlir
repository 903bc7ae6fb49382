// vibegemm-bucket-dispatches: a GEMM dispatch over a run-time M becomes one
// dispatch per bucket of M (M = 1 static, the others with M as a trailing
// index argument and their bucket in vibegemm.m_range and the signature),
// and its call a host-side choice among them on tensor.dim of the GEMM's
// left operand. The input is torch-mlir's nn.Linear shape with a dynamic
// batch (tensor.dim, tensor.empty(%m), linalg.fill); written for vibegemm.

// RUN: vibegemm-opt %s --vibegemm-prepare --vibegemm-form-dispatches --vibegemm-bucket-dispatches="bucket-sizes=1,16" --split-input-file | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-prepare --vibegemm-form-dispatches --vibegemm-bucket-dispatches --split-input-file | FileCheck %s --check-prefix=DEFAULT

// CHECK-LABEL: func.func @linear(
//  CHECK-SAME:     %[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64x32xf32>) -> tensor<?x32xf32>
//       CHECK:   %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
//       CHECK:   %[[IS1:.*]] = arith.cmpi ule, %[[M]], %c1
//       CHECK:   %[[R:.*]] = scf.if %[[IS1]] -> (tensor<?x32xf32>) {
//       CHECK:     %[[X1:.*]] = tensor.cast %[[X]] : tensor<?x64xf32> to tensor<1x64xf32>
//       CHECK:     %[[Y1:.*]] = func.call @linear_d0_m1_1(%[[X1]], %[[W]])
//       CHECK:     %[[Y1D:.*]] = tensor.cast %[[Y1]] : tensor<1x32xf32> to tensor<?x32xf32>
//       CHECK:     scf.yield %[[Y1D]]
//       CHECK:   } else {
//       CHECK:     %[[IS16:.*]] = arith.cmpi ule, %[[M]], %c16
//       CHECK:     scf.if %[[IS16]] -> (tensor<?x32xf32>) {
//       CHECK:       func.call @linear_d0_m2_16(%[[X]], %[[W]], %[[M]]) : (tensor<?x64xf32>, tensor<64x32xf32>, index) -> tensor<?x32xf32>
//       CHECK:     } else {
//       CHECK:       func.call @linear_d0_m17_1048560(%[[X]], %[[W]], %[[M]])
//       CHECK:   return %[[R]]

// The bucket of one size is static, with its own signature.
// CHECK-LABEL: func.func @linear_d0_m1_1(
//  CHECK-SAME:     tensor<1x64xf32>, %{{.*}}: tensor<64x32xf32>) -> tensor<1x32xf32>
//  CHECK-SAME:     vibegemm.signature = "mm1x32x64_f32_f32_NN_e0_
//   CHECK-NOT:     vibegemm.m_range
//       CHECK:   tensor.empty() : tensor<1x32xf32>

// The others read M from their last argument and carry their bucket.
// CHECK-LABEL: func.func @linear_d0_m2_16(
//  CHECK-SAME:     %{{.*}}: tensor<?x64xf32>, %{{.*}}: tensor<64x32xf32>, %[[MARG:.*]]: index) -> tensor<?x32xf32>
//  CHECK-SAME:     vibegemm.m_range = array<i64: 2, 16>
//  CHECK-SAME:     vibegemm.signature = "mmM2-16x32x64_f32_f32_NN_e0_
//       CHECK:   tensor.empty(%[[MARG]]) : tensor<?x32xf32>
//   CHECK-NOT:   tensor.dim
//       CHECK:   return

// The open last bucket ends at 65535 rows of 16-row tiles.
// CHECK-LABEL: func.func @linear_d0_m17_1048560(
//  CHECK-SAME:     vibegemm.m_range = array<i64: 17, 1048560>
//  CHECK-SAME:     vibegemm.signature = "mmM17-1048560x32x64_f32_f32_NN_e0_

// DEFAULT-LABEL: func.func @linear(
// DEFAULT-COUNT-6: func.call @linear_d0_m
// DEFAULT: func.func @linear_d0_m1_1(
// DEFAULT: func.func @linear_d0_m2_16(
// DEFAULT: func.func @linear_d0_m17_64(
// DEFAULT: func.func @linear_d0_m65_256(
// DEFAULT: func.func @linear_d0_m257_1024(
// DEFAULT: func.func @linear_d0_m1025_1048560(
func.func @linear(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%f : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// Static dispatches are left alone.
// CHECK-LABEL: func.func @static(
//       CHECK:   call @static_d0(
//   CHECK-NOT:   scf.if
// CHECK-LABEL: func.func @static_d0(
func.func @static(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
