// transform.vibegemm.split_k: split_reduction with the split dimension
// leading, whose partials' tensor.empty takes the output's run-time sizes
// (upstream's leaves a dynamic M without its operand). Written for
// vibegemm (issue 32).

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --cse | FileCheck %s

// A run-time M: the partials are [2, M, 32], M read from the input.
// CHECK-LABEL: func.func @dynamic_m
//  CHECK-SAME:   %[[A:[a-z0-9]+]]: tensor<?x64xf32>
//       CHECK:   %[[M:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x64xf32>
//       CHECK:   %[[EMPTY:.+]] = tensor.empty(%[[M]]) : tensor<2x?x32xf32>
//       CHECK:   %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<2x?x32xf32>)
//       CHECK:   %[[PARTIAL:.+]] = linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "reduction"]
//  CHECK-SAME:     outs(%[[FILL]] : tensor<2x?x32xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["reduction", "parallel", "parallel"]
//  CHECK-SAME:     ins(%[[PARTIAL]] : tensor<2x?x32xf32>)
//  CHECK-SAME:     outs(%{{.+}} : tensor<?x32xf32>)
func.func @dynamic_m(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %mm {split_factor = 2} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Static shapes: upstream's split, [4, 16, 32] partials.
// CHECK-LABEL: func.func @static
//       CHECK:   tensor.empty() : tensor<4x16x32xf32>
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%{{.+}} : tensor<4x16x32xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%{{.+}} : tensor<16x32xf32>)
func.func @static(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %mm {split_factor = 4} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
