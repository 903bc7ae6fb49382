// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-widen-half-softmax --split-input-file | FileCheck %s

// A dispatch's bf16 softmax becomes an f32 one between an extension and a
// rounding, both tagged as epilogues; the dispatch is marked.
// CHECK-LABEL: func.func @scores_d0
//  CHECK-SAME: vibegemm.widened_softmax
//       CHECK: linalg.matmul
//       CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>) attrs = {vibegemm.role = "epilogue1"}
//  CHECK-NEXT: ^bb0
//  CHECK-NEXT:   arith.extf
//       CHECK: %[[SM:.*]] = linalg.softmax {vibegemm.role = "softmax"} dimension(1) ins(%[[WIDE]] : tensor<4x8xf32>)
//  CHECK-NEXT: linalg.generic {{.*}} ins(%[[SM]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xbf16>) attrs = {vibegemm.role = "epilogue2"}
//  CHECK-NEXT: ^bb0
//  CHECK-NEXT:   arith.truncf
#id = affine_map<(m, n) -> (m, n)>
func.func @scores(%a: tensor<4x16xbf16>, %b: tensor<16x8xbf16>) -> tensor<4x8xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x16xbf16>, tensor<16x8xbf16>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = tensor.empty() : tensor<4x8xbf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%o : tensor<4x8xbf16>) {
  ^bb0(%v: f32, %out: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x8xbf16>
  %so = tensor.empty() : tensor<4x8xbf16>
  %sm = linalg.softmax dimension(1) ins(%t : tensor<4x8xbf16>) outs(%so : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %sm : tensor<4x8xbf16>
}

// -----

// An f32 softmax is left alone, and its dispatch unmarked.
// CHECK-LABEL: func.func @full_d0
//   CHECK-NOT: vibegemm.widened_softmax
//       CHECK: linalg.softmax {vibegemm.role = "softmax"} dimension(1) ins(%{{.*}} : tensor<4x8xf32>)
func.func @full(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %so = tensor.empty() : tensor<4x8xf32>
  %sm = linalg.softmax dimension(1) ins(%c : tensor<4x8xf32>) outs(%so : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %sm : tensor<4x8xf32>
}
