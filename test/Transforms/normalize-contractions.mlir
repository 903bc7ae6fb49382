// RUN: vibegemm-opt %s --vibegemm-normalize-contractions --split-input-file | FileCheck %s

// A bf16 accumulator (IREE's bf16_into_bf16) accumulates in f32 from its own
// fill and is rounded once, in an epilogue.
// CHECK-LABEL: func.func @bf16_into_bf16
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK: %[[G:.+]] = linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} outs(%[[F]] : tensor<16x8xf32>)
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}} ins(%[[G]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16_into_bf16(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<16x8xbf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<16x8xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x8xbf16>) outs(%f : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %r : tensor<16x8xbf16>
}

// -----

// C += A*B into an argument (the Transform tutorial's fc_relu, addmm): a
// zero fill, then an epilogue adding the argument.
// CHECK-LABEL: func.func @accumulate_into_argument
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<16x8xf32>
// CHECK: %[[F:.+]] = linalg.fill
// CHECK: %[[G:.+]] = linalg.generic {{.*}} outs(%[[F]] :
// CHECK: linalg.generic {{.*}} ins(%[[G]], %[[C]] :
// CHECK: arith.addf
func.func @accumulate_into_argument(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Attention's [B, H, S, D] product: two batch loops collapse into one.
#qa = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#kb = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#oc = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
// CHECK-LABEL: func.func @two_batch_loops
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]]
func.func @two_batch_loops(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %r = linalg.generic {indexing_maps = [#qa, #kb, #oc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) outs(%f : tensor<2x4x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x16xf32>
  return %r : tensor<2x4x16x16xf32>
}

// -----

// An input read through a constant 0 on a unit dimension is read collapsed.
#in = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @unit_constant_map
// CHECK: %[[B:.+]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]{{.*}} ins(%{{.*}}, %[[B]] : tensor<4x8xf32>, tensor<8xf32>)
func.func @unit_constant_map(%x: tensor<4x8xf32>, %bias: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #in, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %bias : tensor<4x8xf32>, tensor<1x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A GEMM that already accumulates in f32 from its own fill is left alone.
// CHECK-LABEL: func.func @normal
// CHECK: linalg.matmul
// CHECK-NOT: linalg.generic
func.func @normal(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x8xbf16>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// A reduction that is no contraction (layer norm's row sums over [1, S, D])
// loses every unit loop, also those its input and output both index, and
// its fill is reshaped with it.
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @row_sums
// CHECK: %[[X:.+]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<8x64xf32>) outs(%[[FILL]] : tensor<8xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [1, 8, 1] : tensor<8xf32> into tensor<1x8x1xf32>
func.func @row_sums(%x: tensor<1x8x64xf32>) -> tensor<1x8x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x64xf32>) outs(%f : tensor<1x8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<1x8x1xf32>
  return %s : tensor<1x8x1xf32>
}
