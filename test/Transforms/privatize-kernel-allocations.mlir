// RUN: vibegemm-opt %s --vibegemm-privatize-kernel-allocations --split-input-file | FileCheck %s

// An allocation inside a launch is per thread: it becomes an alloca.
// CHECK-LABEL: func.func @per_thread
//       CHECK: gpu.launch
//       CHECK: memref.alloca() {alignment = 16 : i64} : memref<4xf32>
//   CHECK-NOT: memref.alloc(
func.func @per_thread(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() {alignment = 16 : i64} : memref<4xf32>
    %v = memref.load %buf[%c0] : memref<4xf32>
    memref.store %v, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// One outside any launch, or one freed explicitly, is left alone.
// CHECK-LABEL: func.func @host_and_freed
//       CHECK: memref.alloc() : memref<4xf32>
//       CHECK: gpu.launch
//       CHECK: memref.alloc() : memref<8xf32>
//       CHECK: memref.dealloc
func.func @host_and_freed() {
  %c1 = arith.constant 1 : index
  %host = memref.alloc() : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<8xf32>
    memref.dealloc %buf : memref<8xf32>
    gpu.terminator
  }
  return
}
