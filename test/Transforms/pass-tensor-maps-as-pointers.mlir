// RUN: vibegemm-opt %s --vibegemm-pass-tensor-maps-as-pointers | FileCheck %s

// The kernel takes a pointer and casts it back for its users; the launch
// passes the descriptor through the inverse cast. Other arguments stay.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// CHECK-LABEL: func.func @host
//  CHECK-SAME: (%[[D:.*]]: !nvgpu.tensormap.descriptor<{{.*}}>, %[[B:.*]]: memref<4xf32>)
//       CHECK: %[[P:.*]] = builtin.unrealized_conversion_cast %[[D]] : {{.*}} to !llvm.ptr
//       CHECK: gpu.launch_func @k::@load {{.*}} args(%[[P]] : !llvm.ptr, %[[B]] : memref<4xf32>)
//       CHECK: gpu.func @load(%[[ARG:.*]]: !llvm.ptr, %{{.*}}: memref<4xf32>) kernel
//       CHECK: %[[BACK:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : !llvm.ptr to !nvgpu.tensormap.descriptor
//       CHECK: nvgpu.tma.prefetch.descriptor %[[BACK]]
module attributes {gpu.container_module} {
  func.func @host(%d: !desc, %b: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@load blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%d : !desc, %b : memref<4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @load(%d: !desc, %b: memref<4xf32>) kernel {
      nvgpu.tma.prefetch.descriptor %d : !desc
      gpu.return
    }
  }
}
