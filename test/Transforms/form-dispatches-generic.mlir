// RUN: vibegemm-opt %s --vibegemm-form-dispatches --split-input-file | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches="gemm-only=true" --split-input-file | FileCheck %s --check-prefix=GEMMONLY

// An op no GEMM fuses (a layer norm's row sum) becomes a generic dispatch,
// with the fill that starts the reduction.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @rowsum(
// CHECK: call @rowsum_d0
// CHECK: call @rowsum_d1
// CHECK-LABEL: func.func @rowsum_d1(
// CHECK-SAME: vibegemm.generic
// CHECK: linalg.fill {vibegemm.role = "init"}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME: vibegemm.role = "generic"
// GEMMONLY-LABEL: func.func @rowsum(
// GEMMONLY: call @rowsum_d0
// GEMMONLY: linalg.generic
// GEMMONLY-NOT: vibegemm.generic
func.func @rowsum(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%mm : tensor<64x64xf32>) outs(%f2 : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A constant the epilogue's body uses from the function goes along.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @constant_from_function_d0(
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: linalg.matmul
// CHECK: linalg.generic
func.func @constant_from_function(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %o = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A scalar result gets a unit parallel loop to spread over the GPU.
#all = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @total(
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.+]] = call @total_d0
// CHECK: tensor.collapse_shape %[[R]] [] : tensor<1xf32> into tensor<f32>
// CHECK-LABEL: func.func @total_d0(
// CHECK: linalg.fill {vibegemm.role = "init"} {{.*}} -> tensor<1xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
func.func @total(%x: tensor<128xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]} ins(%x : tensor<128xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
