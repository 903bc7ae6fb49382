// RUN: vibegemm-opt %s --vibegemm-untie-epilogues --split-input-file | FileCheck %s

// An epilogue written in place into the GEMM's result (Triton's lowering):
// it reads the result as an input and writes a fresh tensor.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @in_place
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[E:.+]] = tensor.empty() : tensor<16x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<16x8xf32>) outs(%[[E]] : tensor<16x8xf32>)
// CHECK: arith.maximumf %[[IN:.+]], %{{.*}}
func.func @in_place(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%mm : tensor<16x8xf32>) {
  ^bb0(%x: f32):
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// An epilogue whose outs is a function argument it never reads.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @outs_argument
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
func.func @outs_argument(%x: tensor<4x8xf32>, %out: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %a : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// One empty and one fill shared by two GEMMs and an epilogue (torch-mlir,
// CSE): each op gets its own.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @shared
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<16x8xf32>
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<16x8xf32>
// CHECK: %[[F1:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] :
// CHECK: %[[F0:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] :
// CHECK: linalg.matmul {{.*}} outs(%[[F0]] :
// CHECK: linalg.matmul {{.*}} outs(%[[F1]] :
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<16x8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E2]] :
func.func @shared(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<32x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1 : tensor<16x8xf32>) outs(%o : tensor<16x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  } -> tensor<16x8xf32>
  return %r, %m2 : tensor<16x8xf32>, tensor<16x8xf32>
}
