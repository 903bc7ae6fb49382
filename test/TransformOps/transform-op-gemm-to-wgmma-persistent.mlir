// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s
// transform.vibegemm.gemm_to_wgmma {persistent_blocks}: a fixed grid of
// blocks loops over the tiles; the producer loads the next tile while each
// consumer finishes this one through its own staging tile beside the ring.

// 2x4 tiles of 128x256 over 3 blocks. Block mapping leaves gpu.block_id
// ops in the body; each role's tile loop derives the tile's ids from its
// index instead, the producer from a copy of the origin computations, the
// consumers by running the body itself. Shared memory: 3 stages of 48 KiB,
// two 64x136 f32 staging tiles (34816 bytes each) past the ring, 1 KiB of
// alignment slack.

// CHECK-LABEL: func.func @persistent_bf16(
//   CHECK-DAG:   %[[THREADS:.*]] = arith.constant 384 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 218112 : i32
//   CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C3]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads({{.*}}) in (%{{.*}} = %[[THREADS]], {{.*}}) dynamic_shared_memory_size %[[SMEM]]
//       CHECK:     nvgpu.mbarrier.create
//       CHECK:     gpu.barrier
// Producer: tile index -> (x, y), the ring index from the tile's position.
//       CHECK:     scf.if
//       CHECK:       nvvm.setmaxregister  decrease 40
//       CHECK:       scf.for %[[T:.*]] = %[[BX]] to %[[TILES:.*]] step %{{.*}} {
//       CHECK:         arith.subi %[[T]], %[[BX]]
//       CHECK:         %[[R:.*]] = arith.remui %[[T]], %c8{{[_0-9]*}} : index
//       CHECK:         %[[X:.*]] = arith.remui %[[R]], %c2{{[_0-9]*}} : index
//       CHECK:         %[[Y:.*]] = arith.divui %[[R]], %c2{{[_0-9]*}} : index
//       CHECK:         affine.apply #{{.*}}()[%[[Y]]]
//       CHECK:         affine.apply #{{.*}}()[%[[X]]]
//       CHECK:         scf.for
//       CHECK:           nvgpu.mbarrier.try_wait.parity
//       CHECK:           nvgpu.tma.async.load
//   CHECK-NOT:     gpu.block_id
//       CHECK:     } else {
//       CHECK:       nvvm.setmaxregister  increase 232
//       CHECK:       scf.for %{{.*}} = %[[BX]] to %[[TILES]] step %{{.*}} {
//       CHECK:         %[[SC:.*]] = memref.subview %{{.*}} : memref<512x512xbf16> to memref<128x256xbf16
//       CHECK:         scf.for {{.*}} iter_args
//       CHECK:           nvvm.wgmma.mma_async
//       CHECK:         } {k_loop}
// The tile's last slot goes back to the producer before the epilogue.
//  CHECK-NEXT:         nvvm.wgmma.wait.group.sync.aligned 0
//  CHECK-NEXT:         scf.if
//       CHECK:           nvgpu.mbarrier.arrive
// Consumer c stages into its own tile past the ring, syncing its own
// warpgroup on named barrier 2 + c; two passes of 128 columns.
//       CHECK:         %[[OWN:.*]] = arith.muli %{{.*}}, %c34816
//       CHECK:         arith.addi %c147456, %[[OWN]]
//       CHECK:         %[[STAGE:.*]] = memref.view {{.*}} to memref<64x136xf32, #gpu.address_space<workgroup>>
//       CHECK:         nvvm.barrier id = %[[ID:.*]] number_of_threads = %{{.*}}
// CHECK-COUNT-32:      vector.store %{{.*}}, %[[STAGE]]
//       CHECK:         nvvm.barrier id = %[[ID]]
//       CHECK:         scf.for
//       CHECK:           vector.load %[[STAGE]]
//       CHECK:           vector.store %{{.*}}, %[[SC]]{{.*}} : memref<128x256xbf16, strided<[512, 1], offset: ?>>, vector<4xbf16>
//       CHECK:         nvvm.barrier id = %[[ID]]
// CHECK-COUNT-32:      vector.store %{{.*}}, %[[STAGE]]
//       CHECK:         nvvm.barrier id = %[[ID]]
//       CHECK:         scf.for
//   CHECK-NOT:         linalg.matmul
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @persistent_bf16(%a: memref<512x256xbf16>, %b: memref<256x512xbf16>, %c: memref<512x512xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 256)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [128, 256] [1, 1] : memref<512x256xbf16> to memref<128x256xbf16, strided<[256, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [256, 256] [1, 1] : memref<256x512xbf16> to memref<256x256xbf16, strided<[512, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 256] [1, 1] : memref<512x512xbf16> to memref<128x256xbf16, strided<[512, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<128x256xbf16, strided<[256, 1], offset: ?>>, memref<256x256xbf16, strided<[512, 1], offset: ?>>)
        outs(%acc : memref<128x256xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<128x256xf32>) outs(%sc : memref<128x256xbf16, strided<[512, 1], offset: ?>>) {
    ^bb0(%v: f32, %o: bf16):
      %t = arith.truncf %v : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<128x256xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, stages = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
