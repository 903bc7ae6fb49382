// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s
// transform.vibegemm.gemm_to_wgmma {ping_pong}: the persistent kernel's two
// consumers own alternate tiles and take turns at the main loop.

// 2x4 tiles of 128x128 over 3 blocks: consumer c of block x takes the
// block's tiles x + 3c, x + 3c + 6, ... Each ring slot (4 of 32 KiB) has one
// consumer, so its "empty" mbarrier counts one arrival; a consumer holds
// the whole 128-row tile (two m64n128 accumulators). Before its main loop a
// consumer waits on named barrier 4 + c (all but the first consumer's
// first tile), after it it arrives on the other's barrier if the block has
// a next tile; then its epilogue stores through its own staging tile.

// CHECK-LABEL: func.func @ping_pong_bf16(
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c3{{[_0-9]*}}, {{.*}} threads({{.*}}) in (%{{.*}} = %c384{{[_0-9]*}}, {{.*}}) dynamic_shared_memory_size %c197632_i32
//       CHECK:     nvgpu.mbarrier.init %{{.*}}[%c4{{[_0-9]*}}], %c1{{[_0-9]*}}
//       CHECK:     nvvm.setmaxregister  decrease 40
//       CHECK:     scf.for %{{.*}} = %[[BX]] to %c8{{[_0-9]*}} step %c3{{[_0-9]*}} {
//       CHECK:     nvvm.setmaxregister  increase 232
//       CHECK:     %[[SKIP:.*]] = arith.muli %[[WG:.*]], %c3{{[_0-9]*}} : index
//       CHECK:     %[[FIRST:.*]] = arith.addi %[[BX]], %[[SKIP]] : index
//       CHECK:     scf.for %[[T:.*]] = %[[FIRST]] to %c8{{[_0-9]*}} step %c6{{[_0-9]*}} {
//       CHECK:       %[[MINE:.*]] = arith.cmpi eq, %[[T]], %[[BX]] : index
//       CHECK:       %[[LATER:.*]] = arith.xori %[[MINE]], %true
//       CHECK:       %[[SECOND:.*]] = arith.cmpi ne, %[[WG]], %c0{{[_0-9]*}} : index
//       CHECK:       %[[WAITS:.*]] = arith.ori %[[SECOND]], %[[LATER]] : i1
//       CHECK:       scf.if %[[WAITS]] {
//       CHECK:         %[[OWN:.*]] = arith.addi %[[WG]], %c4{{[_0-9]*}} : index
//       CHECK:         %[[OWN32:.*]] = arith.index_cast %[[OWN]] : index to i32
//       CHECK:         nvvm.barrier id = %[[OWN32]] number_of_threads = %c256_i32
//       CHECK:       scf.for {{.*}} iter_args
// CHECK-COUNT-8:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
//       CHECK:       } {k_loop}
//       CHECK:       %[[NEXT:.*]] = arith.addi %[[T]], %c3{{[_0-9]*}} : index
//       CHECK:       %[[HAS:.*]] = arith.cmpi ult, %[[NEXT]], %c8{{[_0-9]*}} : index
//       CHECK:       scf.if %[[HAS]] {
//       CHECK:         %[[OTHER:.*]] = arith.subi %c1{{[_0-9]*}}, %[[WG]] : index
//       CHECK:         %[[THEIRS:.*]] = arith.addi %[[OTHER]], %c4{{[_0-9]*}} : index
//       CHECK:         %[[THEIRS32:.*]] = arith.index_cast %[[THEIRS]] : index to i32
//       CHECK:         nvvm.barrier.arrive id = %[[THEIRS32]] number_of_threads = %c256_i32
//       CHECK:       nvgpu.tma.async.store
//   CHECK-NOT:     linalg.matmul
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @ping_pong_bf16(%a: memref<256x256xbf16>, %b: memref<512x256xbf16>, %c: memref<256x512xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [128, 256] [1, 1] : memref<256x256xbf16> to memref<128x256xbf16, strided<[256, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [128, 256] [1, 1] : memref<512x256xbf16> to memref<128x256xbf16, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x512xbf16> to memref<128x128xbf16, strided<[512, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x128xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<128x256xbf16, strided<[256, 1], offset: ?>>, memref<128x256xbf16, strided<[256, 1], offset: ?>>)
        outs(%acc : memref<128x128xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<128x128xf32>) outs(%sc : memref<128x128xbf16, strided<[512, 1], offset: ?>>) {
    ^bb0(%v: f32, %o: bf16):
      %t = arith.truncf %v : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<128x128xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, stages = 4, tma_store, ping_pong} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
