// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s
// transform.vibegemm.gemm_to_wgmma {tma_store, tma_load_residual}: the
// epilogue's residual (an input indexed and typed as the output) comes in
// by TMA, box by box, into the staging tile its results then overwrite.
// The first pass's boxes load before the tile's main loop.

// 4x4 tiles of 128x256 over 3 blocks, 3 stages, two consumers: each
// consumer stages its 64x256 bf16 rows at once, four 64x64 boxes (32 KiB).
// Barriers 6 and 7 (2 x stages + consumer) count the residual's bytes.

// CHECK-LABEL: func.func @residual_bf16(
//       CHECK:   %[[OUT:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16
//       CHECK:   %[[RES:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16
//       CHECK:   gpu.launch
//       CHECK:     %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
//       CHECK:       nvgpu.mbarrier.init %[[BARS]][%c6{{.*}}], %c1
//       CHECK:       nvgpu.mbarrier.init %[[BARS]][%c7{{.*}}], %c1
//       CHECK:       nvgpu.tma.prefetch.descriptor %[[RES]]
//       CHECK:     } else {
//       CHECK:       scf.for
// Before the main loop, once the last stores read the staging tile, the
// leader loads the tile's residual.
//       CHECK:         scf.if
//       CHECK:           nvvm.cp.async.bulk.wait_group 0 {read}
//       CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%{{.*}}], %c32768
// CHECK-COUNT-4:         nvgpu.tma.async.load %[[RES]]
//       CHECK:         scf.for {{.*}} {
//       CHECK:         } {k_loop}
// The epilogue waits for it and reads each pair where it writes the result.
//       CHECK:         nvgpu.mbarrier.try_wait.parity %[[BARS]]
//   CHECK-NOT:         memref.load {{.*}}1024, 1
//       CHECK:         vector.load %{{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
//       CHECK:         vector.store %{{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK-COUNT-4:       nvgpu.tma.async.store %{{.*}} to %[[OUT]]
//   CHECK-NOT:         nvgpu.tma.async.load
//   CHECK-NOT:   linalg.generic
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @residual_bf16(%a: memref<512x256xbf16>, %b: memref<1024x256xbf16>, %bias: memref<1024xbf16>, %r: memref<512x1024xbf16>, %c: memref<512x1024xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 256)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [128, 256] [1, 1] : memref<512x256xbf16> to memref<128x256xbf16, strided<[256, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [256, 256] [1, 1] : memref<1024x256xbf16> to memref<256x256xbf16, strided<[256, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<128x256xbf16, strided<[256, 1], offset: ?>>, memref<256x256xbf16, strided<[256, 1], offset: ?>>)
        outs(%acc : memref<128x256xf32>)
    %sbias = memref.subview %bias[%n0] [256] [1] : memref<1024xbf16> to memref<256xbf16, strided<[1], offset: ?>>
    %sr = memref.subview %r[%m0, %n0] [128, 256] [1, 1] : memref<512x1024xbf16> to memref<128x256xbf16, strided<[1024, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 256] [1, 1] : memref<512x1024xbf16> to memref<128x256xbf16, strided<[1024, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %sbias, %sr : memref<128x256xf32>, memref<256xbf16, strided<[1], offset: ?>>, memref<128x256xbf16, strided<[1024, 1], offset: ?>>)
        outs(%sc : memref<128x256xbf16, strided<[1024, 1], offset: ?>>) {
    ^bb0(%v: f32, %bv: bf16, %rv: bf16, %o: bf16):
      %bf = arith.extf %bv : bf16 to f32
      %t = arith.addf %v, %bf : f32
      %s = arith.mulf %t, %half : f32
      %rf = arith.extf %rv : bf16 to f32
      %y = arith.addf %s, %rf : f32
      %yt = arith.truncf %y : f32 to bf16
      linalg.yield %yt : bf16
    }
    memref.dealloc %acc : memref<128x256xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, stages = 3, tma_store, tma_load_residual} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A ragged last tile: TMA zero-fills the residual's boxes past the buffer's
// edge, and an empty tile (none here, but not provably) still waits for
// its residual, then meets the consumer's other threads before the leader
// loads the next tile's, so the barrier's phases stay counted per tile.

// CHECK-LABEL: func.func @residual_ragged(
//       CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
// CHECK-COUNT-4:       nvgpu.tma.async.load
//       CHECK:         } {k_loop}
//       CHECK:         scf.if
//       CHECK:           nvgpu.mbarrier.try_wait.parity
//       CHECK:           vector.load
// CHECK-COUNT-4:         nvgpu.tma.async.store
//       CHECK:         } else {
//       CHECK:           nvgpu.mbarrier.try_wait.parity
//       CHECK:           nvvm.barrier
//       CHECK:         }
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @residual_ragged(%a: memref<500x128xbf16>, %b: memref<480x128xbf16>, %r: memref<500x480xbf16>, %c: memref<500x480xbf16>) {
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
    %ms = affine.min affine_map<()[s0] -> (128, s0 * -128 + 500)>()[%idy]
    %ns = affine.min affine_map<()[s0] -> (256, s0 * -256 + 480)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [%ms, 128] [1, 1] : memref<500x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [%ns, 128] [1, 1] : memref<480x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
    %sr = memref.subview %r[%m0, %n0] [%ms, %ns] [1, 1] : memref<500x480xbf16> to memref<?x?xbf16, strided<[480, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [%ms, %ns] [1, 1] : memref<500x480xbf16> to memref<?x?xbf16, strided<[480, 1], offset: ?>>
    %acc = memref.alloc(%ms, %ns) : memref<?x?xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<?x?xf32>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<?x128xbf16, strided<[128, 1], offset: ?>>, memref<?x128xbf16, strided<[128, 1], offset: ?>>)
        outs(%acc : memref<?x?xf32>)
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %sr : memref<?x?xf32>, memref<?x?xbf16, strided<[480, 1], offset: ?>>) outs(%sc : memref<?x?xbf16, strided<[480, 1], offset: ?>>) {
    ^bb0(%v: f32, %res: bf16, %o: bf16):
      %e = arith.extf %res : bf16 to f32
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<?x?xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, stages = 3, tma_store, tma_load_residual} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
