// vibegemm-pass-dynamic-sizes-as-scalars: a kernel argument with run-time
// sizes becomes its pointer (the sizes set to 1) plus one trailing index
// argument per dynamic size; the body reads the buffer through a
// reinterpret_cast with row-major strides, and each launch passes a cast of
// its buffer and memref.dim of it. Static buffers are left alone.

// RUN: vibegemm-opt %s --vibegemm-pass-dynamic-sizes-as-scalars --split-input-file | FileCheck %s

// CHECK-LABEL: gpu.func @scale(
//  CHECK-SAME:     %[[PTR:.*]]: memref<1x8xf32>, %[[S:.*]]: f32, %[[W:.*]]: memref<4x8xf32>, %[[M:.*]]: index) kernel
//       CHECK:   %[[BUF:.*]] = memref.reinterpret_cast %[[PTR]] to offset: [0], sizes: [%[[M]], 8], strides: [8, 1] : memref<1x8xf32> to memref<?x8xf32>
//       CHECK:   memref.dim %[[BUF]]
//       CHECK:   memref.load %[[BUF]]
//       CHECK:   memref.store %{{.*}}, %[[BUF]]
// CHECK-LABEL: func.func @host(
//  CHECK-SAME:     %[[HBUF:.*]]: memref<?x8xf32>, %[[HW:.*]]: memref<4x8xf32>)
//       CHECK:   %[[HM:dim_[0-9]+]] = memref.dim %[[HBUF]], %{{.*}} : memref<?x8xf32>
//       CHECK:   %[[CAST:.*]] = memref.cast %[[HBUF]] : memref<?x8xf32> to memref<1x8xf32>
//       CHECK:   gpu.launch_func @k::@scale {{.*}} args(%[[CAST]] : memref<1x8xf32>, %{{.*}} : f32, %[[HW]] : memref<4x8xf32>, %[[HM]] : index)
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%buf: memref<?x8xf32>, %s: f32, %w: memref<4x8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %i = gpu.block_id x
      %m = memref.dim %buf, %c0 : memref<?x8xf32>
      %in = arith.cmpi ult, %i, %m : index
      scf.if %in {
        %v = memref.load %buf[%i, %c0] : memref<?x8xf32>
        %x = memref.load %w[%c0, %c0] : memref<4x8xf32>
        %p = arith.mulf %v, %s : f32
        %q = arith.addf %p, %x : f32
        memref.store %q, %buf[%i, %c0] : memref<?x8xf32>
      }
      gpu.return
    }
  }
  func.func @host(%buf: memref<?x8xf32>, %w: memref<4x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = arith.constant 2.0 : f32
    %m = memref.dim %buf, %c0 : memref<?x8xf32>
    gpu.launch_func @k::@scale blocks in (%m, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<?x8xf32>, %s : f32, %w : memref<4x8xf32>)
    return
  }
}

// -----

// Two dynamic sizes (a 3-D buffer): two index arguments, in order, and the
// outer stride a product of run-time values.
// CHECK-LABEL: gpu.func @two(
//  CHECK-SAME:     %[[P:.*]]: memref<1x1x8xf32>, %[[D0:.*]]: index, %[[D1:.*]]: index) kernel
//       CHECK:   %[[STRIDE:.*]] = arith.muli %c8, %[[D1]]
//       CHECK:   memref.reinterpret_cast %[[P]] to offset: [0], sizes: [%[[D0]], %[[D1]], 8], strides: [%[[STRIDE]], 8, 1]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two(%buf: memref<?x?x8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %buf[%c0, %c0, %c0] : memref<?x?x8xf32>
      gpu.return
    }
  }
  func.func @host(%buf: memref<?x?x8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@two blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<?x?x8xf32>)
    return
  }
}
