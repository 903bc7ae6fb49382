// RUN: vibegemm-opt %s --vibegemm-convert-frontend-ops --split-input-file | FileCheck %s

// Elementwise arith on whole tensors becomes a generic.
// CHECK-LABEL: func.func @tensor_arith
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NOT: arith.addf %{{.*}} : tensor
func.func @tensor_arith(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = arith.addf %a, %b : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Named transposes and elementwise ops are generalized; matmul and fill stay.
// CHECK-LABEL: func.func @named
// CHECK-NOT: linalg.transpose
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf
func.func @named(%a: tensor<16x32xf32>, %w: tensor<8x32xf32>, %bias: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<32x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x32xf32>) outs(%e : tensor<32x8xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%a, %wt : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o2 = tensor.empty() : tensor<16x8xf32>
  %r = linalg.add ins(%mm, %bias : tensor<16x8xf32>, tensor<16x8xf32>) outs(%o2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// A splat constant accumulator (TOSA's lowering) becomes a fill.
// CHECK-LABEL: func.func @splat_init
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]]
// CHECK: linalg.matmul {{.*}} outs(%[[F]]
func.func @splat_init(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant dense<0.0> : tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Scalar arithmetic in 0-d tensors (attention's 1/sqrt(d) from Python floats)
// folds to a constant inside the consumer's body; the f64 is gone.
#s = affine_map<(d0, d1) -> ()>
#id = affine_map<(d0, d1) -> (d0, d1)>
#z = affine_map<() -> ()>
// CHECK-LABEL: func.func @scalar_0d
// CHECK: %[[C:.+]] = arith.constant 1.250000e-01 : f32
// CHECK-NOT: f64
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x4xf32>)
// CHECK: arith.mulf %{{.*}}, %[[C]] : f32
func.func @scalar_0d(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e0 = tensor.empty() : tensor<f64>
  %s = linalg.generic {indexing_maps = [#z], iterator_types = []} outs(%e0 : tensor<f64>) {
  ^bb0(%o: f64):
    %c8 = arith.constant 8.0 : f64
    %one = arith.constant 1.0 : f64
    %d = arith.divf %one, %c8 : f64
    linalg.yield %d : f64
  } -> tensor<f64>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #s, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x4xf32>, tensor<f64>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f64, %o: f32):
    %bt = arith.truncf %b : f64 to f32
    %m = arith.mulf %a, %bt : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Functions marked vibegemm.ignore are left alone.
// CHECK-LABEL: func.func @ignored
// CHECK: arith.addf %{{.*}} : tensor<4xf32>
func.func @ignored(%a: tensor<4xf32>) -> tensor<4xf32> attributes {vibegemm.ignore} {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
