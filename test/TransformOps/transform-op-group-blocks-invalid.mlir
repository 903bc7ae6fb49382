// transform.vibegemm.group_blocks refuses what it cannot renumber.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// A grid whose x size is known only at run time.
func.func @dynamic_grid(%out: memref<8x?xf32>, %columns: index) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  // expected-note @below {{target op}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %columns, %gy = %c8, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %out[%by, %bx] : memref<8x?xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{grouping blocks needs a constant x grid size}}
    transform.vibegemm.group_blocks %launch : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_launch(%a: memref<8xf32>) {
  // expected-note @below {{target op}}
  %c0 = arith.constant 0 : index
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the target is not a gpu.launch}}
    transform.vibegemm.group_blocks %c : !transform.any_op
    transform.yield
  }
}

// -----

func.func @no_group() {
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.group_blocks' op group must be at least 1}}
    transform.vibegemm.group_blocks %f {group = 0} : !transform.any_op
    transform.yield
  }
}

// -----

// Clusters along x would be split by the grouped order.
func.func @cluster_along_x(%out: memref<8x8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  // expected-note @below {{target op}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c8, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %out[%by, %bx] : memref<8x8xf32>
    gpu.terminator
  } {vibegemm.cluster = array<i64: 2, 1, 1>}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{grouping blocks keeps only clusters of whole rows along y together}}
    transform.vibegemm.group_blocks %launch : !transform.any_op
    transform.yield
  }
}
