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
