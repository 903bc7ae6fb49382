// transform.vibegemm.map_forall_to_grid refuses foralls it cannot turn
// into a grid, leaving them as they are.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// Mapped to threads, not blocks.
func.func @thread_mapped(%out: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  // expected-note @below {{target op}}
  scf.forall (%i) in (4) {
    memref.store %one, %out[%i] : memref<4xf32>
  } {mapping = [#gpu.thread<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %forall = transform.structured.match ops{["scf.forall"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the forall's mapping must name distinct #gpu.block<x|y|z>}}
    %launch = transform.vibegemm.map_forall_to_grid %forall : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Not normalized: the loop starts at 2.
func.func @not_normalized(%out: memref<8xf32>) {
  %one = arith.constant 1.0 : f32
  // expected-note @below {{target op}}
  scf.forall (%i) = (2) to (8) step (1) {
    memref.store %one, %out[%i] : memref<8xf32>
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %forall = transform.structured.match ops{["scf.forall"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{normalized}}
    %launch = transform.vibegemm.map_forall_to_grid %forall : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Not bufferized: the forall still has shared outputs.
func.func @tensor_outputs(%t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{target op}}
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> tensor<4xf32> {
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<4xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %forall = transform.structured.match ops{["scf.forall"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the forall must be bufferized}}
    %launch = transform.vibegemm.map_forall_to_grid %forall : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
