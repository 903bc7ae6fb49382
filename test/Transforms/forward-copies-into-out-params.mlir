// RUN: vibegemm-opt %s --vibegemm-forward-copies-into-out-params --split-input-file | FileCheck %s

// The callee writes the out-parameter directly; the copy is gone.
// CHECK-LABEL: func.func @direct
//  CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
//   CHECK-NOT: memref.alloc
//       CHECK: call @compute(%[[A]], %[[OUT]])
//   CHECK-NOT: memref.copy
func.func @direct(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {vibegemm.num_inputs = 1 : i64} {
  %tmp = memref.alloc() : memref<4xf32>
  call @compute(%a, %tmp) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func private @compute(memref<4xf32>, memref<4xf32>)

// -----

// A result reshaped on the host: the allocation becomes the inverse
// reshape of the out-parameter.
// CHECK-LABEL: func.func @reshaped
//  CHECK-SAME: (%[[A:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<2x4xf32>)
//       CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]]
//       CHECK: call @compute8(%[[A]], %[[FLAT]])
//   CHECK-NOT: memref.copy
func.func @reshaped(%a: memref<8xf32>, %out: memref<2x4xf32>)
    attributes {vibegemm.num_inputs = 1 : i64} {
  %tmp = memref.alloc() : memref<8xf32>
  call @compute8(%a, %tmp) : (memref<8xf32>, memref<8xf32>) -> ()
  %view = memref.expand_shape %tmp [[0, 1]] output_shape [2, 4]
      : memref<8xf32> into memref<2x4xf32>
  memref.copy %view, %out : memref<2x4xf32> to memref<2x4xf32>
  return
}
func.func private @compute8(memref<8xf32>, memref<8xf32>)

// -----

// An out-parameter used elsewhere keeps its copy; so does an input, and
// any function without vibegemm.num_inputs.
// CHECK-LABEL: func.func @kept
//       CHECK: memref.alloc
//       CHECK: memref.copy
// CHECK-LABEL: func.func @untouched
//       CHECK: memref.alloc
//       CHECK: memref.copy
func.func @kept(%a: memref<4xf32>, %out: memref<4xf32>)
    attributes {vibegemm.num_inputs = 1 : i64} {
  %tmp = memref.alloc() : memref<4xf32>
  call @compute2(%out, %tmp) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func @untouched(%a: memref<4xf32>, %out: memref<4xf32>) {
  %tmp = memref.alloc() : memref<4xf32>
  call @compute2(%a, %tmp) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func private @compute2(memref<4xf32>, memref<4xf32>)

// -----

// The host's choice among bucket kernels of a run-time M: each branch's
// result allocation (static in the M = 1 bucket, behind a cast) becomes
// the out-parameter, and the copy of the scf.if's result is gone.
// CHECK-LABEL: func.func @buckets
//  CHECK-SAME: (%[[A:.*]]: memref<?x4xf32>, %[[OUT:.*]]: memref<?x4xf32>)
//       CHECK:   scf.if
//       CHECK:     %[[ONE:.*]] = memref.cast %[[OUT]] : memref<?x4xf32> to memref<1x4xf32>
//       CHECK:     func.call @bucket1(%{{.*}}, %[[ONE]])
//       CHECK:   } else {
//   CHECK-NOT:     memref.alloc
//       CHECK:     func.call @bucketN(%[[A]], %{{.*}}, %[[OUT]])
//   CHECK-NOT: memref.copy
func.func @buckets(%a: memref<?x4xf32>, %out: memref<?x4xf32>)
    attributes {vibegemm.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x4xf32>
  %is1 = arith.cmpi ule, %m, %c1 : index
  %r = scf.if %is1 -> (memref<?x4xf32>) {
    %a1 = memref.cast %a : memref<?x4xf32> to memref<1x4xf32>
    %t1 = memref.alloc() : memref<1x4xf32>
    func.call @bucket1(%a1, %t1) : (memref<1x4xf32>, memref<1x4xf32>) -> ()
    %t1d = memref.cast %t1 : memref<1x4xf32> to memref<?x4xf32>
    scf.yield %t1d : memref<?x4xf32>
  } else {
    %tn = memref.alloc(%m) : memref<?x4xf32>
    func.call @bucketN(%a, %m, %tn) : (memref<?x4xf32>, index, memref<?x4xf32>) -> ()
    scf.yield %tn : memref<?x4xf32>
  }
  memref.copy %r, %out : memref<?x4xf32> to memref<?x4xf32>
  return
}
func.func private @bucket1(memref<1x4xf32>, memref<1x4xf32>)
func.func private @bucketN(memref<?x4xf32>, index, memref<?x4xf32>)

// -----

// The same choice over a batch folded into M: the buckets compute
// [B * S, 4], expanded to the [B, S, 4] out-parameter. Each branch's
// allocation becomes a collapsed view of the out-parameter, made before
// the scf.if; the expand and the copy are gone.
// CHECK-LABEL: func.func @folded_batch
//  CHECK-SAME: (%[[A:.*]]: memref<?x?x4xf32>, %[[OUT:.*]]: memref<?x?x4xf32>)
//       CHECK:   %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<?x?x4xf32> into memref<?x4xf32>
//       CHECK:   scf.if
//       CHECK:     %[[ONE:.*]] = memref.cast %[[VIEW]] : memref<?x4xf32> to memref<1x4xf32>
//       CHECK:     func.call @bucket1(%{{.*}}, %[[ONE]])
//       CHECK:   } else {
//   CHECK-NOT:     memref.alloc
//       CHECK:     func.call @bucketN(%{{.*}}, %{{.*}}, %[[VIEW]])
//   CHECK-NOT: memref.expand_shape
//   CHECK-NOT: memref.copy
func.func @folded_batch(%a: memref<?x?x4xf32>, %out: memref<?x?x4xf32>)
    attributes {vibegemm.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %a, %c0 : memref<?x?x4xf32>
  %s = memref.dim %a, %c1 : memref<?x?x4xf32>
  %flat = memref.collapse_shape %a [[0, 1], [2]] : memref<?x?x4xf32> into memref<?x4xf32>
  %m = memref.dim %flat, %c0 : memref<?x4xf32>
  %is1 = arith.cmpi ule, %m, %c1 : index
  %r = scf.if %is1 -> (memref<?x4xf32>) {
    %a1 = memref.cast %flat : memref<?x4xf32> to memref<1x4xf32>
    %t1 = memref.alloc() : memref<1x4xf32>
    func.call @bucket1(%a1, %t1) : (memref<1x4xf32>, memref<1x4xf32>) -> ()
    %t1d = memref.cast %t1 : memref<1x4xf32> to memref<?x4xf32>
    scf.yield %t1d : memref<?x4xf32>
  } else {
    %tn = memref.alloc(%m) : memref<?x4xf32>
    func.call @bucketN(%flat, %m, %tn) : (memref<?x4xf32>, index, memref<?x4xf32>) -> ()
    scf.yield %tn : memref<?x4xf32>
  }
  %e = memref.expand_shape %r [[0, 1], [2]] output_shape [%b, %s, 4] : memref<?x4xf32> into memref<?x?x4xf32>
  memref.copy %e, %out : memref<?x?x4xf32> to memref<?x?x4xf32>
  return
}
func.func private @bucket1(memref<1x4xf32>, memref<1x4xf32>)
func.func private @bucketN(memref<?x4xf32>, index, memref<?x4xf32>)
