// transform.vibegemm.map_forall_to_grid: a block-mapped forall becomes a
// gpu.launch whose grid is the forall's upper bounds, computed on the host
// (a run-time M gives ceildiv(M, 32) block rows), and whose block ids
// replace the induction variables.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @dynamic_rows(
//  CHECK-SAME:     %[[OUT:.*]]: memref<?x64xf32>
//       CHECK:   %[[M:.*]] = memref.dim %[[OUT]], %c0
//       CHECK:   %[[ROWS:.*]] = affine.apply #{{.*}}()[%[[M]]]
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %[[BY:[a-zA-Z0-9_]+]], %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c2, %{{[a-z0-9_]+}} = %[[ROWS]], %{{[a-z0-9_]+}} = %c1)
//  CHECK-SAME:     threads(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c1, %{{[a-z0-9_]+}} = %c1, %{{[a-z0-9_]+}} = %c1)
//       CHECK:     memref.store %{{[a-z0-9_]+}}, %[[OUT]][%[[BY]], %[[BX]]]
//       CHECK:     gpu.terminator
//   CHECK-NOT:   scf.forall (
func.func @dynamic_rows(%out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %m = memref.dim %out, %c0 : memref<?x64xf32>
  %rows = affine.apply affine_map<()[s0] -> (s0 ceildiv 32)>()[%m]
  scf.forall (%i, %j) in (%rows, 2) {
    memref.store %one, %out[%i, %j] : memref<?x64xf32>
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %forall = transform.structured.match ops{["scf.forall"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.vibegemm.map_forall_to_grid %forall : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Static trip counts give the grid upstream's map_forall_to_blocks would;
// an unmapped grid dimension is 1.

// CHECK-LABEL: func.func @static_grid(
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c4, %{{[a-z0-9_]+}} = %c1, %{{[a-z0-9_]+}} = %c1)
//       CHECK:     memref.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[BX]]]
func.func @static_grid(%out: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  scf.forall (%i) in (4) {
    memref.store %one, %out[%i] : memref<4xf32>
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %forall = transform.structured.match ops{["scf.forall"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.vibegemm.map_forall_to_grid %forall : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
