// transform.vibegemm.gemm_to_wgmma {f32_precision = "tf32"} on an f32
// nn.Linear-layout tile (A [M, K], B [N, K]): K-tiles of 32 f32 (one
// 128-byte swizzle row, boxes of 128 x 32), four k8 steps of m64nNk8
// .tf32 per K-tile for each of the consumer's two 64-row groups, both
// operands read K-major, and the function marked for the launch plan.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @nt_tf32(
//  CHECK-SAME:     vibegemm.f32_precision = "tf32"
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} : memref<*xf32> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} : memref<*xf32> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:       nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-2:     nvgpu.tma.async.load {{.*}} -> memref<128x32xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-8:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
//   CHECK-NOT:       nvvm.wgmma.mma_async
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @nt_tf32(%a: memref<256x512xf32>, %b: memref<256x512xf32>, %c: memref<256x256xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [128, 512] [1, 1] : memref<256x512xf32> to memref<128x512xf32, strided<[512, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [128, 512] [1, 1] : memref<256x512xf32> to memref<128x512xf32, strided<[512, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<128x512xf32, strided<[512, 1], offset: ?>>, memref<128x512xf32, strided<[512, 1], offset: ?>>)
        outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {f32_precision = "tf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
