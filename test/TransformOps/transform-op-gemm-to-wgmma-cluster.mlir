// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s
// transform.vibegemm.gemm_to_wgmma {cluster_rows = 2}: pairs of blocks along
// grid y run as one cluster and multicast their halves of B's K-tiles into
// both blocks; a slot is free once both blocks' consumers released it.

// B stored [K, N] comes in 64-column boxes: the block of rank r in its
// cluster loads boxes 2r and 2r + 1 of each K-tile, multicast to both
// blocks (mask 0b11). The "empty" barriers count both blocks' two
// consumers; the consumers arrive on them in both blocks of the cluster
// through mapa. Cluster barriers replace the block barrier after the
// barriers' initialisation and close the kernel.

// CHECK-LABEL: func.func @cluster_bf16(
//       CHECK:   gpu.launch
//       CHECK:     %[[BARS:.*]] = nvgpu.mbarrier.create
//       CHECK:     scf.if
//       CHECK:       nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %c1
//       CHECK:       nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %c4
//       CHECK:       nvvm.fence.mbarrier.init
//       CHECK:     %[[RANK:.*]] = gpu.cluster_block_id  y
//  CHECK-NEXT:     nvvm.cluster.arrive
//  CHECK-NEXT:     nvvm.cluster.wait
//   CHECK-NOT:     gpu.barrier
//       CHECK:     %[[MASK:.*]] = arith.constant 3 : i16
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[RANK]], %c128
//       CHECK:     nvgpu.tma.async.load {{.*}} to %{{.*}} multicast_mask = %[[MASK]] : {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:     nvgpu.tma.async.load {{.*}} to %{{.*}} multicast_mask = %[[MASK]] : {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:     nvgpu.tma.async.load
//       CHECK:     nvvm.wgmma.mma_async
//       CHECK:     %[[EMPTY:.*]] = nvgpu.mbarrier.get %[[BARS]]
//       CHECK:     %[[LOCAL:.*]] = llvm.inttoptr %[[EMPTY]] : i32 to !llvm.ptr<3>
//       CHECK:     %[[R0:.*]] = nvvm.mapa %[[LOCAL]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
//       CHECK:     nvvm.mbarrier.arrive %[[R0]] : !llvm.ptr<7>
//       CHECK:     %[[R1:.*]] = nvvm.mapa %[[LOCAL]], %c1_i32{{[_0-9]*}} : !llvm.ptr<3> -> !llvm.ptr<7>
//       CHECK:     nvvm.mbarrier.arrive %[[R1]] : !llvm.ptr<7>
//       CHECK:     gpu.barrier
//       CHECK:     nvvm.cluster.arrive
//  CHECK-NEXT:     nvvm.cluster.wait
//  CHECK-NEXT:     gpu.terminator
//       CHECK:   } {vibegemm.cluster = array<i64: 1, 2, 1>}
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @cluster_bf16(%a: memref<512x256xbf16>, %b: memref<256x512xbf16>, %c: memref<512x512xbf16>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2, consumers = 2, stages = 4} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// B stored [N, K] (K-major): one box of 128 of the tile's 256 rows per
// block, rows 128 * rank onwards.

// CHECK-LABEL: func.func @cluster_nk_bf16(
//       CHECK:     %[[RANK:.*]] = gpu.cluster_block_id  y
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[RANK]], %c128
//       CHECK:     nvgpu.tma.async.load {{.*}} multicast_mask = %{{.*}} : {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:     nvgpu.tma.async.load
//       CHECK:     nvvm.wgmma.mma_async
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @cluster_nk_bf16(%a: memref<512x256xbf16>, %b: memref<512x256xbf16>, %c: memref<512x512xbf16>) {
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
    %sb = memref.subview %b[%n0, 0] [256, 256] [1, 1] : memref<512x256xbf16> to memref<256x256xbf16, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 256] [1, 1] : memref<512x512xbf16> to memref<128x256xbf16, strided<[512, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<128x256xbf16, strided<[256, 1], offset: ?>>, memref<256x256xbf16, strided<[256, 1], offset: ?>>)
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2, consumers = 2, stages = 4} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Persistent and in clusters: 4 blocks as 2 clusters of 2 (grid 2 x 2), each
// cluster taking pairs of vertically adjacent tiles: pair index p from the
// cluster's id in steps of 2 over the 4 pairs of the 2 x 4 tiles, the
// pair's column p mod 2 and its rows 2 (p / 2) + the block's y.

// CHECK-LABEL: func.func @persistent_cluster_bf16(
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %[[BY:[a-zA-Z0-9_]+]], %{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
//       CHECK:     nvvm.fence.mbarrier.init
//       CHECK:     gpu.cluster_block_id  y
//       CHECK:     nvvm.cluster.wait
//       CHECK:     scf.for %[[P:.*]] = %[[BX]] to %c4{{[_0-9]*}} step %c2{{[_0-9]*}} {
//       CHECK:       %[[R:.*]] = arith.remui %[[P]], %c4{{[_0-9]*}} : index
//       CHECK:       %[[X:.*]] = arith.remui %[[R]], %c2{{[_0-9]*}} : index
//       CHECK:       %[[YP:.*]] = arith.divui %[[R]], %c2{{[_0-9]*}} : index
//       CHECK:       %[[Y2:.*]] = arith.muli %[[YP]], %c2{{[_0-9]*}} : index
//       CHECK:       %[[Y:.*]] = arith.addi %[[Y2]], %[[BY]] : index
//       CHECK:       affine.apply #{{.*}}()[%[[Y]]]
//       CHECK:       nvgpu.tma.async.load {{.*}} multicast_mask
//       CHECK:     } else {
//       CHECK:       scf.for %{{.*}} = %[[BX]] to %c4{{[_0-9]*}} step %c2{{[_0-9]*}} {
//       CHECK:         nvvm.wgmma.mma_async
//       CHECK:         nvvm.mapa
//       CHECK:     nvvm.cluster.arrive
//  CHECK-NEXT:     nvvm.cluster.wait
//  CHECK-NEXT:     gpu.terminator
//       CHECK:   } {vibegemm.cluster = array<i64: 1, 2, 1>}
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @persistent_cluster_bf16(%a: memref<512x256xbf16>, %b: memref<256x512xbf16>, %c: memref<512x512xbf16>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2, persistent_blocks = 4, consumers = 2, stages = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// group_rows = 4 on top: the pair index walks groups of 4 / 2 = 2 pair rows
// (grouped order over the 2 x 2 grid of pairs), then the block's y picks
// its row in the pair.

// CHECK-LABEL: func.func @grouped_persistent_cluster_bf16(
//       CHECK:   gpu.launch blocks(%[[BX:[a-zA-Z0-9_]+]], %[[BY:[a-zA-Z0-9_]+]], %{{.*}}) in
//       CHECK:     scf.for %[[P:.*]] = %[[BX]] to %c4{{[_0-9]*}} step %c2{{[_0-9]*}} {
//       CHECK:       %[[R:.*]] = arith.remui %[[P]], %c4{{[_0-9]*}} : index
//       CHECK:       %[[G:.*]] = arith.divui %[[R]], %[[PER:.*]] : index
//       CHECK:       arith.minui
//       CHECK:       %[[IN:.*]] = arith.remui %[[R]], %[[PER]] : index
//       CHECK:       %[[DY:.*]] = arith.remui %[[IN]], %[[ROWS:.*]] : index
//       CHECK:       %[[YP:.*]] = arith.addi %{{.*}}, %[[DY]] : index
//       CHECK:       %[[X:.*]] = arith.divui %[[IN]], %[[ROWS]] : index
//       CHECK:       %[[Y2:.*]] = arith.muli %[[YP]], %c2{{[_0-9]*}} : index
//       CHECK:       %[[Y:.*]] = arith.addi %[[Y2]], %[[BY]] : index
//       CHECK:       affine.apply #{{.*}}()[%[[Y]]]
//       CHECK:       affine.apply #{{.*}}()[%[[X]]]
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @grouped_persistent_cluster_bf16(%a: memref<512x256xbf16>, %b: memref<256x512xbf16>, %c: memref<512x512xbf16>) {
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2, persistent_blocks = 4, group_rows = 4, consumers = 2, stages = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

