// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s
// transform.vibegemm.gemm_to_wgmma {persistent_blocks, tma_store}: each
// consumer runs the epilogue on its accumulators in registers, writes the
// results in the output type to its own swizzled staging boxes, and its
// first thread stores them with TMA, waiting for the last stores to have
// read the staging tile before writing it again.

// 2x4 tiles of 128x256 over 3 blocks, 4 stages: each consumer's 64 rows go
// out in two passes of 128 bf16 columns (two 64x64 boxes, 16 KiB), so the
// shared memory is 4 x 48 KiB + 2 x 16 KiB + 1 KiB of alignment slack.

// CHECK-LABEL: func.func @tma_store_bf16(
//       CHECK:   %[[OUT:.*]] = memref.cast %{{.*}} : memref<512x512xbf16> to memref<*xbf16>
//       CHECK:   %[[MAP:.*]] = nvgpu.tma.create.descriptor %[[OUT]] box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
//       CHECK:   %[[SMEM:.*]] = arith.constant 230400 : i32
//       CHECK:   gpu.launch {{.*}} dynamic_shared_memory_size %[[SMEM]]
//       CHECK:     } else {
//       CHECK:       %[[TILES:.*]] = scf.for
//       CHECK:         } {k_loop}
// Pass 1: wait until the last stores read the staging, write 32 bf16 pairs
// per thread, fence them to the async proxy, then the leader stores.
//       CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
//       CHECK:         nvvm.barrier id = %[[ID:.*]] number_of_threads
//   CHECK-NOT:         arith.minui
// CHECK-COUNT-32:      vector.store %{{.*}} : memref<8192xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
//       CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:         nvvm.barrier id = %[[ID]]
//       CHECK:         scf.if
// CHECK-COUNT-2:         nvgpu.tma.async.store %{{.*}} to %[[MAP]][%{{.*}}, %{{.*}}] : memref<64x64xbf16, #gpu.address_space<workgroup>>
//  CHECK-NEXT:           nvvm.cp.async.bulk.commit.group
// Pass 2.
//       CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-COUNT-32:      vector.store %{{.*}} : memref<8192xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK-COUNT-2:       nvgpu.tma.async.store
//       CHECK:         nvvm.cp.async.bulk.commit.group
// After the last tile the leader waits for its stores to complete.
//       CHECK:         nvvm.cp.async.bulk.wait_group 0{{$}}
//   CHECK-NOT:   linalg.generic
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @tma_store_bf16(%a: memref<512x256xbf16>, %b: memref<256x512xbf16>, %c: memref<512x512xbf16>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A ragged last tile (500x480 outputs) as tiling makes it, ending at the
// buffer's edge: TMA clips its boxes there, and the epilogue's loads of the
// residual are clamped inside the tile (an empty tile skips the epilogue).
// 3 stages leave room for a whole 256-column pass (32 KiB per consumer).

// CHECK-LABEL: func.func @tma_store_ragged(
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none
//       CHECK:   arith.constant 214016 : i32
//       CHECK:         } {k_loop}
//       CHECK:         arith.cmpi ugt
//       CHECK:         arith.cmpi ugt
//       CHECK:         scf.if
//       CHECK:           arith.minui
//       CHECK:         memref.load %{{.*}} : memref<?x?xbf16, strided<[480, 1], offset: ?>>
// CHECK-COUNT-4:       nvgpu.tma.async.store
//   CHECK-NOT:       nvgpu.tma.async.store
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @tma_store_ragged(%a: memref<500x128xbf16>, %b: memref<480x128xbf16>, %r: memref<500x480xbf16>, %c: memref<500x480xbf16>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, stages = 3, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}


// -----

// All 16 rows of a decode-like output under a 64-row block: the tile is the
// whole buffer, so it ends at its edge. f32 outputs go out in 64x32 boxes
// (128 bytes a row), four for the 128 columns.

// CHECK-LABEL: func.func @tma_store_whole_short_output(
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<64x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:         } {k_loop}
//       CHECK:         arith.minui
// CHECK-COUNT-4:       nvgpu.tma.async.store %{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>
//   CHECK-NOT:       nvgpu.tma.async.store
func.func @tma_store_whole_short_output(%a: memref<16x64xbf16>, %b: memref<128x64xbf16>, %c: memref<16x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%a, %b : memref<16x64xbf16>, memref<128x64xbf16>) outs(%c : memref<16x128xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batched output: 3-D tensor map with a batch box of 1, the batch index
// as the last coordinate of each store. One consumer holds all 128 rows:
// two 64-row groups of two 64-column boxes.

// CHECK-LABEL: func.func @tma_store_batched(
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none
//       CHECK:         } {k_loop}
// CHECK-COUNT-4:       nvgpu.tma.async.store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:       nvgpu.tma.async.store
#mA = affine_map<(b, m, n, k) -> (b, m, k)>
#mB = affine_map<(b, m, n, k) -> (b, k, n)>
#mC = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @tma_store_batched(%a: memref<4x256x512xbf16>, %b: memref<4x512x256xbf16>, %c: memref<4x256x256xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c4)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[%bz, %m0, 0] [1, 128, 512] [1, 1, 1] : memref<4x256x512xbf16> to memref<1x128x512xbf16, strided<[131072, 512, 1], offset: ?>>
    %sb = memref.subview %b[%bz, 0, %n0] [1, 512, 128] [1, 1, 1] : memref<4x512x256xbf16> to memref<1x512x128xbf16, strided<[131072, 256, 1], offset: ?>>
    %sc = memref.subview %c[%bz, %m0, %n0] [1, 128, 128] [1, 1, 1] : memref<4x256x256xbf16> to memref<1x128x128xbf16, strided<[65536, 256, 1], offset: ?>>
    %acc = memref.alloc() : memref<1x128x128xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<1x128x128xf32>)
    linalg.batch_matmul ins(%sa, %sb : memref<1x128x512xbf16, strided<[131072, 512, 1], offset: ?>>, memref<1x512x128xbf16, strided<[131072, 256, 1], offset: ?>>)
        outs(%acc : memref<1x128x128xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%acc : memref<1x128x128xf32>) outs(%sc : memref<1x128x128xbf16, strided<[65536, 256, 1], offset: ?>>) {
    ^bb0(%v: f32, %o: bf16):
      %t = arith.truncf %v : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<1x128x128xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
