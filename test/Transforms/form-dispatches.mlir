// RUN: vibegemm-opt %s --vibegemm-form-dispatches --split-input-file | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches="fuse-epilogues=false" --split-input-file | FileCheck %s --check-prefix=NOFUSE

// A GEMM with its fill becomes one dispatch that the original code calls.
// CHECK-LABEL: func.func @gemm(
//       CHECK:   %[[R:.+]] = call @gemm_d0(%arg0, %arg1)
//       CHECK:   return %[[R]]
// CHECK-LABEL: func.func @gemm_d0(
//  CHECK-SAME:   vibegemm.dispatch
//  CHECK-SAME:   vibegemm.fusion = ["linalg.fill", "linalg.matmul"]
//  CHECK-SAME:   vibegemm.signature = "mm64x32x16_f32_f32_NN_e0_
//       CHECK:   linalg.fill {vibegemm.role = "init"}
//       CHECK:   linalg.matmul {vibegemm.role = "root"}
func.func @gemm(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// An elementwise epilogue is fused; its extra operand becomes an argument.
// B arrives transposed through indexing_maps, as nn.Linear weights do.
// CHECK-LABEL: func.func @linear_relu(
//       CHECK:   call @linear_relu_d0(%arg0, %arg1, %arg2)
// CHECK-LABEL: func.func @linear_relu_d0(
//  CHECK-SAME:   vibegemm.fuse_epilogues = true
//  CHECK-SAME:   vibegemm.fusion = ["linalg.fill", "linalg.matmul", "linalg.generic"]
//  CHECK-SAME:   vibegemm.signature = "mm64x32x16_bf16_f32_NT_e1_
//       CHECK:   linalg.generic
//  CHECK-SAME:   vibegemm.role = "epilogue0"
// The fusion decision is recorded on the dispatch; the consumer stays in it.
// NOFUSE-LABEL: func.func @linear_relu_d0(
//  NOFUSE-SAME:   vibegemm.fuse_epilogues = false
//       NOFUSE:   linalg.generic
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @linear_relu(%x: tensor<64x16xbf16>, %w: tensor<32x16xbf16>, %bias: tensor<32xf32>) -> tensor<64x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : tensor<64x16xbf16>, tensor<32x16xbf16>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %o = tensor.empty() : tensor<64x32xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%o : tensor<64x32xbf16>) {
  ^bb0(%v: f32, %b: f32, %out: bf16):
    %c0 = arith.constant 0.0 : f32
    %t = arith.addf %v, %b : f32
    %r = arith.maximumf %t, %c0 : f32
    %h = arith.truncf %r : f32 to bf16
    linalg.yield %h : bf16
  } -> tensor<64x32xbf16>
  return %y : tensor<64x32xbf16>
}

// -----

// A GEMM that accumulates onto an input gets an explicit copy as its init.
// CHECK-LABEL: func.func @accumulate_d0(
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<16x8xf32>
//       CHECK:   %[[C:.+]] = linalg.copy {vibegemm.role = "init"} ins(%arg2 : tensor<16x8xf32>) outs(%[[E]] : tensor<16x8xf32>)
//       CHECK:   linalg.matmul {vibegemm.role = "root"} ins(%arg0, %arg1 : tensor<16x4xf32>, tensor<4x8xf32>) outs(%[[C]] : tensor<16x8xf32>)
func.func @accumulate(%a: tensor<16x4xf32>, %b: tensor<4x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x4xf32>, tensor<4x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
