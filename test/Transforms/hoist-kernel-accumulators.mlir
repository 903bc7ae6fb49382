// RUN: vibegemm-opt %s --vibegemm-hoist-kernel-accumulators | FileCheck %s

// The accumulator is read before the K loop, carried through it, and
// written once after it.
// CHECK-LABEL: gpu.func @accumulate
//       CHECK: %[[INIT:.*]] = vector.transfer_read %[[C:.*]][%{{.*}}]
//       CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]])
//       CHECK:   vector.transfer_read
//       CHECK:   arith.addf %[[ACC]]
//   CHECK-NOT:   vector.transfer_write
//       CHECK:   scf.yield
//       CHECK: vector.transfer_write %[[SUM]], %[[C]]
gpu.module @kernels {
  gpu.func @accumulate(%a: memref<16x4xf32>, %c: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %pad = arith.constant 0.0 : f32
    scf.for %k = %c0 to %c16 step %c1 {
      %acc = vector.transfer_read %c[%c0], %pad {in_bounds = [true]}
          : memref<4xf32>, vector<4xf32>
      %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true]}
          : memref<16x4xf32>, vector<4xf32>
      %s = arith.addf %acc, %x : vector<4xf32>
      vector.transfer_write %s, %c[%c0] {in_bounds = [true]}
          : vector<4xf32>, memref<4xf32>
    }
    gpu.return
  }
}
