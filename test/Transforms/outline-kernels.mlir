// RUN: vibegemm-opt %s --vibegemm-outline-kernels --split-input-file | FileCheck %s

// Outlining drops a launch's attributes; the cluster shape and the
// starting registers reach the launch_func and the kernel.
// CHECK-LABEL: func.func @hints
//       CHECK: arith.constant 2 : index
//       CHECK: %[[CX:.*]] = arith.constant 2 : index
//  CHECK-NEXT: %[[CY:.*]] = arith.constant 1 : index
//  CHECK-NEXT: %[[CZ:.*]] = arith.constant 1 : index
//  CHECK-NEXT: gpu.launch_func @hints_kernel::@hints_kernel clusters in (%[[CX]], %[[CY]], %[[CZ]])
//       CHECK: gpu.func @hints_kernel
//  CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
//  CHECK-SAME: nvvm.maxnreg = 168 : i32
func.func @hints(%a: memref<64xf32>) attributes {vibegemm.dispatch} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%bx] : memref<64xf32>
    memref.store %v, %a[%tx] : memref<64xf32>
    gpu.terminator
  } {vibegemm.cluster = array<i64: 2, 1, 1>, vibegemm.max_registers = 168 : i64}
  return
}

// -----

// Without hints a kernel gets neither attribute, and the launch no
// cluster sizes.
// CHECK-LABEL: func.func @plain
//       CHECK: gpu.launch_func @plain_kernel::@plain_kernel blocks in
//       CHECK: gpu.func @plain_kernel
//   CHECK-NOT: nvvm.
//       CHECK: gpu.return
func.func @plain(%a: memref<64xf32>) attributes {vibegemm.dispatch} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<64xf32>
    memref.store %v, %a[%bx] : memref<64xf32>
    gpu.terminator
  }
  return
}
