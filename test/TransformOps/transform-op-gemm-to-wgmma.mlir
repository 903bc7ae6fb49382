// transform.vibegemm.gemm_to_wgmma on a block's bufferized NN GEMM tile:
// host-side TMA descriptors, a producer warpgroup (the last) loading
// K-tiles with TMA under mbarriers, consumer warpgroups running
// nvvm.wgmma.mma_async, and the epilogue through a shared-memory staging
// tile.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// bf16 NN GEMM, 128x128 block tiles, default options: stages = 4, one
// consumer (256 threads). Shared memory: 4 x (128x64 + 64x128) x 2 bytes of
// ring (the 128 x 132 f32 staging tile overlays it) + 1024 bytes of slack
// to align the slots to the 128-byte swizzle's 1024-byte repeat.

// CHECK-LABEL: func.func @nn_bf16(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<256x512xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<512x256xbf16>, %[[C:[a-zA-Z0-9_]+]]: memref<256x256xbf16>)
// Host side: one swizzled tensor map per operand buffer.
//       CHECK:   %[[UA:.*]] = memref.cast %[[A]] : memref<256x512xbf16> to memref<*xbf16>
//       CHECK:   %[[DA:.*]] = nvgpu.tma.create.descriptor %[[UA]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
//       CHECK:   %[[UB:.*]] = memref.cast %[[B]] : memref<512x256xbf16> to memref<*xbf16>
//       CHECK:   %[[DB:.*]] = nvgpu.tma.create.descriptor %[[UB]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 132096 : i32
//       CHECK:   gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C256]], {{.*}}) dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     gpu.dynamic_shared_memory
//       CHECK:     memref.extract_aligned_pointer_as_index
//       CHECK:     %[[BAR:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// CHECK-COUNT-8:   nvgpu.mbarrier.init %[[BAR]]
//       CHECK:     nvgpu.tma.prefetch.descriptor %[[DA]]
//       CHECK:     nvgpu.tma.prefetch.descriptor %[[DB]]
// The initialised barriers made visible to the async proxy (TMA).
//  CHECK-NEXT:     nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:     gpu.barrier
// Producer: waits for a free slot from the second round on, then one A box
// and two 64-column B boxes per K-tile, 32768 bytes expected.
//       CHECK:     scf.if
//       CHECK:       scf.for
//       CHECK:         nvgpu.mbarrier.try_wait.parity %[[BAR]]
//       CHECK:         nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%{{.*}}], %{{.*}} :
//       CHECK:         nvgpu.tma.async.load %[[DA]][%{{.*}}, %{{.*}}], %[[BAR]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
//  CHECK-COUNT-2:      nvgpu.tma.async.load %[[DB]][%{{.*}}, %{{.*}}], %[[BAR]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
// Consumer: two 64-row f32 accumulators (64 values per thread each); per
// K-tile a fence, 4 k16 steps x 2 row groups of wgmma m64n128k16 (A and B
// row-major), one commit, one group left in flight, then the previous slot
// goes back.
//       CHECK:     } else {
//       CHECK:       llvm.mlir.poison : !llvm.struct<(f32,
// CHECK-COUNT-64:    llvm.insertvalue
//       CHECK:       %[[ACC:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC0:.*]] = %[[ZEROS:.*]], %[[ACC1:.*]] = %[[ZEROS]])
//       CHECK:         nvgpu.mbarrier.try_wait.parity %[[BAR]]
//       CHECK:         nvvm.wgmma.fence.aligned
//       CHECK:         nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC0]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
//       CHECK:         nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC1]], <m = 64, n = 128, k = 16>
//  CHECK-COUNT-6:      nvvm.wgmma.mma_async
//   CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
//   CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
//       CHECK:         nvgpu.mbarrier.arrive %[[BAR]]
//       CHECK:       } {k_loop}
//  CHECK-NEXT:       nvvm.wgmma.wait.group.sync.aligned 0
// Accumulator pairs into the padded staging tile.
//       CHECK:       vector.store %{{.*}} {alignment = 8 : i64} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//       CHECK:     gpu.barrier
// Epilogue: 4-column chunks of the staging tile, truncated and stored as
// one 8-byte vector each.
//       CHECK:     scf.for
//       CHECK:       vector.load %{{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:       arith.truncf
//       CHECK:       vector.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : memref<128x128xbf16, strided<[256, 1], offset: ?>>, vector<4xbf16>
//   CHECK-NOT:     linalg.matmul
//   CHECK-NOT:     linalg.generic
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @nn_bf16(%a: memref<256x512xbf16>, %b: memref<512x256xbf16>, %c: memref<256x256xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [128, 512] [1, 1] : memref<256x512xbf16> to memref<128x512xbf16, strided<[512, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [512, 128] [1, 1] : memref<512x256xbf16> to memref<512x128xbf16, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x256xbf16> to memref<128x128xbf16, strided<[256, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x128xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<128x512xbf16, strided<[512, 1], offset: ?>>, memref<512x128xbf16, strided<[256, 1], offset: ?>>)
        outs(%acc : memref<128x128xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<128x128xf32>) outs(%sc : memref<128x128xbf16, strided<[256, 1], offset: ?>>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Two consumers over a 128x256 tile with a ragged N edge (N = 200) and no
// fill: each consumer owns 64 rows, the producer gives registers to them,
// a named barrier keeps the staging tile off slots still being read, and
// the accumulator's old contents are added in the epilogue. Chunks wholly
// inside N go out as vectors; the rest element by element.

// CHECK-LABEL: func.func @two_consumers_ragged(
//       CHECK:   dynamic_shared_memory_size
//       CHECK:     nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
//       CHECK:     scf.if
//       CHECK:       nvvm.setmaxregister  decrease 40
//       CHECK:     } else {
//       CHECK:       nvvm.setmaxregister  increase 232
//       CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:       nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
//       CHECK:       vector.store {{.*}} : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//       CHECK:     scf.for
//       CHECK:       scf.if
//       CHECK:         memref.load %{{.*}} : memref<128x200xf32
//       CHECK:         vector.store {{.*}} vector<4xf32>
//       CHECK:       } else {
//       CHECK:         scf.if
//       CHECK:           memref.store
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @two_consumers_ragged(%a: memref<128x256xf16>, %b: memref<256x200xf16>, %c: memref<128x200xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x256xf16>, memref<256x200xf16>)
        outs(%c : memref<128x200xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm {stages = 3, consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// nn.Linear's layout: B stored [N, K]. One TMA box of BN rows x 64 per
// K-tile, like A, and wgmma reads B column-major (K-major, 32-byte steps).

// CHECK-LABEL: func.func @nt_bf16(
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:       nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-2:     nvgpu.tma.async.load {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:       nvgpu.tma.async.load
//       CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @nt_bf16(%a: memref<256x512xbf16>, %b: memref<256x512xbf16>, %c: memref<256x256xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [128, 512] [1, 1] : memref<256x512xbf16> to memref<128x512xbf16, strided<[512, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [128, 512] [1, 1] : memref<256x512xbf16> to memref<128x512xbf16, strided<[512, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<128x512xbf16, strided<[512, 1], offset: ?>>, memref<128x512xbf16, strided<[512, 1], offset: ?>>)
        outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A stored [K, M] (KernelBench's A.T): two boxes of 64 K-rows x 64 columns
// of A per K-tile, like B, and wgmma reads A column-major.

// CHECK-LABEL: func.func @tn_bf16(
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:       nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-4:     nvgpu.tma.async.load {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:       nvgpu.tma.async.load
//       CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
#mAt = affine_map<(m, n, k) -> (k, m)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @tn_bf16(%a: memref<512x256xbf16>, %b: memref<512x256xbf16>, %c: memref<256x256xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[0, %m0] [512, 128] [1, 1] : memref<512x256xbf16> to memref<512x128xbf16, strided<[256, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [512, 128] [1, 1] : memref<512x256xbf16> to memref<512x128xbf16, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mAt, #mB, #mC]
        ins(%sa, %sb : memref<512x128xbf16, strided<[256, 1], offset: ?>>, memref<512x128xbf16, strided<[256, 1], offset: ?>>)
        outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batch_matmul block tile (batch tiled to 1): 3-D tensor maps with a
// batch box of 1, the batch index as the last TMA coordinate.

// CHECK-LABEL: func.func @batched_bf16(
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<1x128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<1x64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:       nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %[[BZ:.*]]], %{{.*}} to %{{.*}} : {{.*}} -> memref<1x128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
//       CHECK:       vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<1x128x128xbf16, strided<[65536, 256, 1], offset: ?>>, vector<4xbf16>
#mA = affine_map<(b, m, n, k) -> (b, m, k)>
#mB = affine_map<(b, m, n, k) -> (b, k, n)>
#mC = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @batched_bf16(%a: memref<4x256x512xbf16>, %b: memref<4x512x256xbf16>, %c: memref<4x256x256xbf16>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Split-K (the partial GEMM of structured.split_reduction): A [128, 4096]
// and B [4096, 128] viewed as [128, 4, 1024] and [4, 1024, 128] through
// expand_shape, one split per block z. The tensor maps stay 2-D over the
// whole buffers; each block's K-tiles start at block z * 1024, and the f32
// partial goes to its slice of the [4, 128, 128] buffer.

// CHECK-LABEL: func.func @split_k_bf16(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<128x4096xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<4096x128xbf16>
//       CHECK:   %[[UA:.*]] = memref.cast %[[A]] : memref<128x4096xbf16> to memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %[[UA]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   %[[UB:.*]] = memref.cast %[[B]] : memref<4096x128xbf16> to memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %[[UB]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   gpu.launch blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[BZ:[a-z0-9_]+]]) in
//       CHECK:       %[[Z:.*]] = arith.addi %{{.*}}, %[[BZ]] : index
//       CHECK:       %[[KBASE:.*]] = arith.muli %[[Z]], %c1024{{.*}} : index
//       CHECK:       scf.for %[[KT:.*]] = %{{.*}} to %c16 step
//       CHECK:         %[[KOFF:.*]] = arith.muli %[[KT]], %c64{{.*}} : index
//       CHECK:         %[[K:.*]] = arith.addi %[[KBASE]], %[[KOFF]] : index
//       CHECK:         nvgpu.tma.async.load %{{.*}}[%[[K]], %{{.*}}], %{{.*}} to %{{.*}} : {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:         nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[K]]], %{{.*}} to %{{.*}} : {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
//       CHECK:       vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>, vector<4xf32>
#mA = affine_map<(s, m, n, k) -> (m, s, k)>
#mB = affine_map<(s, m, n, k) -> (s, k, n)>
#mC = affine_map<(s, m, n, k) -> (s, m, n)>
func.func @split_k_bf16(%a: memref<128x4096xbf16>, %b: memref<4096x128xbf16>, %partial: memref<4x128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ea = memref.expand_shape %a [[0], [1, 2]] output_shape [128, 4, 1024] : memref<128x4096xbf16> into memref<128x4x1024xbf16>
  %eb = memref.expand_shape %b [[0, 1], [2]] output_shape [4, 1024, 128] : memref<4096x128xbf16> into memref<4x1024x128xbf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c4)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %ea[0, %bz, 0] [128, 1, 1024] [1, 1, 1] : memref<128x4x1024xbf16> to memref<128x1x1024xbf16, strided<[4096, 1024, 1], offset: ?>>
    %sb = memref.subview %eb[%bz, 0, 0] [1, 1024, 128] [1, 1, 1] : memref<4x1024x128xbf16> to memref<1x1024x128xbf16, strided<[131072, 128, 1], offset: ?>>
    %sc = memref.subview %partial[%bz, 0, 0] [1, 128, 128] [1, 1, 1] : memref<4x128x128xf32> to memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%sa, %sb : memref<128x1x1024xbf16, strided<[4096, 1024, 1], offset: ?>>, memref<1x1024x128xbf16, strided<[131072, 128, 1], offset: ?>>)
        outs(%sc : memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>) attrs = {vibegemm.split_k} {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match attributes{vibegemm.split_k} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batched GEMM whose A is a reshape [4 * 256, 512] -> [4, 256, 512]: an
// expand_shape that does not split K is a buffer like any other, read
// through a 3-D tensor map (not split-K).

// CHECK-LABEL: func.func @batched_reshape(
//       CHECK:   %[[A:.*]] = memref.expand_shape
//       CHECK:   %[[UA:.*]] = memref.cast %[[A]] : memref<4x256x512xbf16> to memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %[[UA]] box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<1x128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:     nvvm.wgmma.mma_async
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @batched_reshape(%a2: memref<1024x512xbf16>, %b: memref<4x512x256xbf16>, %c: memref<4x256x256xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.expand_shape %a2 [[0, 1], [2]] output_shape [4, 256, 512] : memref<1024x512xbf16> into memref<4x256x512xbf16>
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An i1 output (a comparison after the GEMM): its 4-value chunks are not
// whole bytes, so the epilogue stores element by element.

// CHECK-LABEL: func.func @i1_output(
//   CHECK-NOT:   vector.store %{{.*}} : memref<128x128xi1
//       CHECK:   arith.cmpf ogt
//       CHECK:   memref.store %{{.*}}, %{{.*}} : memref<128x128xi1, strided<[256, 1], offset: ?>>
//   CHECK-NOT:   vector.store %{{.*}} : memref<128x128xi1
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @i1_output(%a: memref<256x512xbf16>, %b: memref<512x256xbf16>, %c: memref<256x256xi1>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [128, 512] [1, 1] : memref<256x512xbf16> to memref<128x512xbf16, strided<[512, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [512, 128] [1, 1] : memref<512x256xbf16> to memref<512x128xbf16, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x256xi1> to memref<128x128xi1, strided<[256, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x128xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%sa, %sb : memref<128x512xbf16, strided<[512, 1], offset: ?>>, memref<512x128xbf16, strided<[256, 1], offset: ?>>)
        outs(%acc : memref<128x128xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<128x128xf32>) outs(%sc : memref<128x128xi1, strided<[256, 1], offset: ?>>) {
    ^bb0(%v: f32, %o: i1):
      %t = arith.cmpf ogt, %v, %zero : f32
      linalg.yield %t : i1
    }
    memref.dealloc %acc : memref<128x128xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
