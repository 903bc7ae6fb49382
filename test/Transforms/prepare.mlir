// RUN: vibegemm-opt %s --vibegemm-prepare --split-input-file | FileCheck %s

// TOSA input is lowered with upstream's TOSA-to-linalg pipeline first.
// CHECK-LABEL: func.func @tosa_matmul
// CHECK-NOT: tosa.
// CHECK: linalg.fill
// CHECK: linalg.batch_matmul
func.func @tosa_matmul(%a: tensor<1x16x32xf32>, %b: tensor<1x32x8xf32>) -> tensor<1x16x8xf32> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %za, %zb : (tensor<1x16x32xf32>, tensor<1x32x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x8xf32>
  return %r : tensor<1x16x8xf32>
}

// -----

// torch-mlir's global seed parses and stays; nothing else is touched by it.
// CHECK: ml_program.global private mutable @global_seed
// CHECK-LABEL: func.func @with_seed
ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
func.func @with_seed(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
