// transform.vibegemm.split_k refuses targets it cannot split, leaving them
// as they are. Written for vibegemm (issue 32).

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// K (60) is not a multiple of the split factor (8).
func.func @ragged_k(%a: tensor<?x60xf32>, %b: tensor<60x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-note @below {{target op}}
  %r = linalg.matmul ins(%a, %b : tensor<?x60xf32>, tensor<60x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the reduction size (60) must be static and a multiple of the split factor (8)}}
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %mm {split_factor = 8} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A run-time K.
func.func @dynamic_k(%a: tensor<16x?xf32>, %b: tensor<?x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-note @below {{target op}}
  %r = linalg.matmul ins(%a, %b : tensor<16x?xf32>, tensor<?x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the reduction size (?) must be static}}
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %mm {split_factor = 2} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// No reduction dimension: an elementwise op.
func.func @elementwise(%a: tensor<16xf32>, %c: tensor<16xf32>) -> tensor<16xf32> {
  // expected-note @below {{target op}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
         ins(%a : tensor<16xf32>) outs(%c : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{one output and one reduction dimension}}
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %g {split_factor = 2} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A split factor under 2 does not verify.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{attribute 'split_factor' failed to satisfy constraint}}
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %mm {split_factor = 1} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A combiner without a neutral element (a product of differences).
func.func @no_combiner(%a: tensor<16x64xf32>, %c: tensor<16xf32>) -> tensor<16xf32> {
  // expected-note @below {{target op}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
         ins(%a : tensor<16x64xf32>) outs(%c : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %d = arith.subf %x, %o : f32
    linalg.yield %d : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{linalg::splitReduction refused the target}}
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %g {split_factor = 2} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
