// RUN: vibegemm-opt %s --vibegemm-fuse-producers --split-input-file | FileCheck %s

// torch-mlir's nn.Linear: the weight transpose folds into the GEMM's map.
#t_in = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @linear_transpose
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[WT:.+]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<8x32xf32>)
// CHECK-NOT: linalg.generic
func.func @linear_transpose(%x: tensor<16x32xf32>, %w: tensor<8x32xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<32x8xf32>
  %wt = linalg.generic {indexing_maps = [#t_in, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<8x32xf32>) outs(%e : tensor<32x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<32x8xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// SiLU as x * sigmoid(x): the DAG becomes one generic reading the GEMM.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu_dag
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<16x8xf32>)
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @silu_dag(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e1 = tensor.empty() : tensor<16x8xf32>
  %sig = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<16x8xf32>) outs(%e1 : tensor<16x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %silu = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %sig : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%x: f32, %s: f32, %out: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<16x8xf32>
  return %silu : tensor<16x8xf32>
}

// -----

// An nn.Linear on [B, S, D]: the epilogue moves in front of the reshape,
// onto the GEMM's 2-D result.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @reshape_past_epilogue
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<16x8xf32>, tensor<8xf32>)
// CHECK: tensor.expand_shape %[[EPI]]
func.func @reshape_past_epilogue(%x: tensor<2x8x32xf32>, %w: tensor<32x8xf32>, %bias: tensor<8xf32>) -> tensor<2x8x8xf32> {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x8x32xf32> into tensor<16x32xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%c, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %ex = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 8, 8] : tensor<16x8xf32> into tensor<2x8x8xf32>
  %e = tensor.empty() : tensor<2x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id3, #b3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %bias : tensor<2x8x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}

// -----

// Arithmetic on an operand never moves into a GEMM.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @no_arith_into_gemm
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: math.tanh
// CHECK: linalg.matmul
func.func @no_arith_into_gemm(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<16x32xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%t, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
