// RUN: vibegemm-opt %s --vibegemm-merge-kernels-per-dispatch | FileCheck %s

// Both kernels of @d0 move into @d0_kernels, named in launch order; the
// second kernel's clashing global is renamed; the emptied modules go.
// CHECK-LABEL: func.func @d0
//       CHECK: gpu.launch_func @d0_kernels::@d0_kernel_0
//       CHECK: gpu.launch_func @d0_kernels::@d0_kernel_1
//   CHECK-NOT: gpu.module @m0
//   CHECK-NOT: gpu.module @m1
//       CHECK: gpu.module @d0_kernels
//   CHECK-DAG: gpu.func @d0_kernel_0
//   CHECK-DAG: memref.get_global @smem :
//   CHECK-DAG: memref.global "private" @smem_k1
//   CHECK-DAG: gpu.func @d0_kernel_1
//   CHECK-DAG: memref.get_global @smem_k1 :
//   CHECK-DAG: memref.global "private" @smem :
module attributes {gpu.container_module} {
  func.func @d0(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @m0::@first blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @m1::@second blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @m0 {
    memref.global "private" @smem : memref<4xf32, 3>
    gpu.func @first(%a: memref<4xf32>) kernel {
      %s = memref.get_global @smem : memref<4xf32, 3>
      gpu.return
    }
  }
  gpu.module @m1 {
    memref.global "private" @smem : memref<4xf32, 3>
    gpu.func @second(%a: memref<4xf32>) kernel {
      %s = memref.get_global @smem : memref<4xf32, 3>
      gpu.return
    }
  }
}
