// transform.vibegemm.group_blocks: the x and y block ids a launch's body
// reads become Triton's grouped order (groups of `group` rows along y, y
// fastest within a group); z and the launch itself stay as they are.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// A 4 x 6 grid (gx = 4, gy = 6) in groups of 4 rows: the second group has
// only 2 rows. Both the gpu.block_id ops and the launch's block-id
// arguments are renumbered; gpu.block_id z is not.

// CHECK-LABEL: func.func @grouped(
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %[[BY:[a-zA-Z0-9_]+]], %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c6, %{{.*}} = %c2)
//       CHECK:     %[[ROW:.*]] = arith.muli %[[BY]], %c4
//       CHECK:     %[[L:.*]] = arith.addi %[[BX]], %[[ROW]]
//       CHECK:     %[[G:.*]] = arith.divui %[[L]], %[[C16:.*]] : index
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[G]], %{{.*}}
//       CHECK:     %[[LEFT:.*]] = arith.subi %c6{{.*}}, %[[FIRST]]
//       CHECK:     %[[ROWS:.*]] = arith.minui %[[LEFT]], %{{.*}}
//       CHECK:     %[[IN:.*]] = arith.remui %[[L]], %[[C16]]
//       CHECK:     %[[DY:.*]] = arith.remui %[[IN]], %[[ROWS]]
//       CHECK:     %[[Y:.*]] = arith.addi %[[FIRST]], %[[DY]]
//       CHECK:     %[[X:.*]] = arith.divui %[[IN]], %[[ROWS]]
//       CHECK:     %[[Z:.*]] = gpu.block_id z
//       CHECK:     %[[M0:.*]] = affine.apply #{{.*}}()[%[[Y]]]
//       CHECK:     %[[N0:.*]] = affine.apply #{{.*}}()[%[[X]]]
//       CHECK:     memref.store %{{.*}}, %{{.*}}[%[[Z]], %[[M0]], %[[N0]]]
//       CHECK:     memref.store %{{.*}}, %{{.*}}[%[[Z]], %[[Y]], %[[X]]]
func.func @grouped(%out: memref<2x96x64xf32>, %ids: memref<2x6x4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c6, %gz = %c2)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %idz = gpu.block_id z
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 16)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 16)>()[%idx]
    memref.store %one, %out[%idz, %m0, %n0] : memref<2x96x64xf32>
    memref.store %one, %ids[%idz, %by, %bx] : memref<2x6x4xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.group_blocks %launch {group = 4} : !transform.any_op
    transform.yield
  }
}

// -----

// Rows of tiles known only at run time (a grid over a run-time M): the
// last group's rows come from the launch's grid size y.

// CHECK-LABEL: func.func @runtime_rows(
//  CHECK-SAME:   %{{[a-zA-Z0-9_]+}}: memref<?x4xf32>,
//  CHECK-SAME:   %[[ROWS_ARG:[a-zA-Z0-9_]+]]: index
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %[[BY:[a-zA-Z0-9_]+]], %{{[a-zA-Z0-9_]+}}) in (%{{[a-zA-Z0-9_]+}} = %c4, %[[GY:[a-zA-Z0-9_]+]] = %[[ROWS_ARG]], %{{[a-zA-Z0-9_]+}} = %c1)
//       CHECK:     %[[ROW:.*]] = arith.muli %[[BY]], %c4
//       CHECK:     %[[L:.*]] = arith.addi %[[BX]], %[[ROW]]
//       CHECK:     %[[G:.*]] = arith.divui %[[L]], %{{.*}} : index
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[G]], %{{.*}}
//       CHECK:     %[[LEFT:.*]] = arith.subi %[[GY]], %[[FIRST]]
//       CHECK:     arith.minui %[[LEFT]], %{{.*}}
func.func @runtime_rows(%ids: memref<?x4xf32>, %rows: index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %rows, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %ids[%by, %bx] : memref<?x4xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.group_blocks %launch {group = 4} : !transform.any_op
    transform.yield
  }
}

// -----

// One row of blocks: nothing to regroup, the body is left as it was.

// CHECK-LABEL: func.func @one_row(
//   CHECK-NOT:   arith.minui
//       CHECK:   %[[X:.*]] = gpu.block_id x
//       CHECK:   memref.store %{{.*}}, %{{.*}}[%[[X]]]
func.func @one_row(%out: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    memref.store %one, %out[%idx] : memref<8xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.group_blocks %launch : !transform.any_op
    transform.yield
  }
}

// -----

// Blocks in clusters of two rows (gemm_to_wgmma {cluster_rows = 2}): the
// grouped order runs over clusters, a 4 x 8 grid as 4 x 4 cluster rows in
// groups of 4 / 2 = 2 cluster rows, and each block keeps its rank in its
// cluster, so both blocks of a cluster get the same column x and adjacent
// rows 2 * cy' + rank.

// CHECK-LABEL: func.func @clustered(
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %[[BY:[a-zA-Z0-9_]+]], %{{.*}}) in
//       CHECK:     %[[UNIT:.*]] = arith.divui %[[BY]], %c2
//       CHECK:     %[[RANK:.*]] = arith.remui %[[BY]], %c2
//       CHECK:     %[[ROW:.*]] = arith.muli %[[UNIT]], %c4
//       CHECK:     %[[L:.*]] = arith.addi %[[BX]], %[[ROW]]
//       CHECK:     %[[G:.*]] = arith.divui %[[L]], %[[C8:.*]] : index
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[G]], %{{.*}}
//       CHECK:     %[[LEFT:.*]] = arith.subi %c4{{.*}}, %[[FIRST]]
//       CHECK:     %[[ROWS:.*]] = arith.minui %[[LEFT]], %{{.*}}
//       CHECK:     %[[IN:.*]] = arith.remui %[[L]], %[[C8]]
//       CHECK:     %[[DY:.*]] = arith.remui %[[IN]], %[[ROWS]]
//       CHECK:     %[[UY:.*]] = arith.addi %[[FIRST]], %[[DY]]
//       CHECK:     %[[X:.*]] = arith.divui %[[IN]], %[[ROWS]]
//       CHECK:     %[[Y2:.*]] = arith.muli %[[UY]], %c2
//       CHECK:     %[[Y:.*]] = arith.addi %[[Y2]], %[[RANK]]
//       CHECK:     memref.store %{{.*}}, %{{.*}}[%[[Y]], %[[X]]]
//       CHECK:   } {vibegemm.cluster = array<i64: 1, 2, 1>}
func.func @clustered(%ids: memref<8x4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c8, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %ids[%by, %bx] : memref<8x4xf32>
    gpu.terminator
  } {vibegemm.cluster = array<i64: 1, 2, 1>}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.group_blocks %launch {group = 4} : !transform.any_op
    transform.yield
  }
}
