// transform.vibegemm.gemm_to_ffma on a block's bufferized f32 GEMM tile: the
// cp.async ring in dynamic shared memory holding [k][m] and [k][n] tiles,
// float4 fragments, FFMA outer products on vector<4xf32> register
// accumulators, and the epilogue on the registers.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// NT (B stored [N, K]) with a fill, default options: a 128x128 tile with
// 8x8 outputs per thread is 16x16 = 256 threads; block_k = 16, stages = 3.
// Both operands are K-innermost, so both are copied (and transposed) with
// 4-byte cp.async, 128 x 16 / 256 = 8 per thread and operand per K tile.
// Shared memory: 3 stages x 16 rows x (128 + 4) x 4 bytes x 2 = 50688.

// CHECK-LABEL: func.func @nt_f32(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<256x64xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<256x64xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<256x256xf32>)
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 50688 : i32
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     %[[SC:.*]] = memref.subview %[[C]]
//   CHECK-NOT:     linalg.fill
//       CHECK:     gpu.thread_id x
//       CHECK:     %[[RING_A:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x16x132xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_B:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x16x132xf32, #gpu.address_space<workgroup>>
// The prologue puts stages - 1 = 2 K-tiles in flight.
//  CHECK-COUNT-8:  nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[RING_A]][%{{.*}}, %{{.*}}, %{{.*}}], 1, %{{.*}} : memref<128x64xf32, strided<[?, 1], offset: ?>> to memref<3x16x132xf32, #gpu.address_space<workgroup>>
//  CHECK-COUNT-8:  nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[RING_B]][
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:     nvvm.cp.async.commit.group
//   CHECK-NOT:     nvvm.cp.async.commit.group
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
//       CHECK:       nvvm.cp.async.wait.group 1
//  CHECK-NEXT:       gpu.barrier
//       CHECK:       nvvm.cp.async.commit.group
// Each k: two float4 loads per operand, then 8 x 2 vector FMAs.
//       CHECK:       vector.load %[[RING_A]][{{.*}}] : memref<3x16x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:       vector.load %[[RING_A]]
//       CHECK:       vector.load %[[RING_B]]
//       CHECK:       vector.load %[[RING_B]]
//  CHECK-COUNT-16:   vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
//       CHECK:       vector.load %[[RING_A]]
//       CHECK:       scf.yield
//  CHECK-NEXT:     } {k_loop}
//  CHECK-NEXT:     nvvm.cp.async.wait.group 0
// One 16-byte store per row of four columns: 8 rows x 2 groups.
//  CHECK-COUNT-16: vector.store %{{.*}}, %[[SC]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<128x128xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
//   CHECK-NOT:     vector.store
//   CHECK-NOT:     linalg.matmul
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @nt_f32(%a: memref<256x64xf32>, %b: memref<256x64xf32>, %c: memref<256x256xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [128, 64] [1, 1] : memref<256x64xf32> to memref<128x64xf32, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [128, 64] [1, 1] : memref<256x64xf32> to memref<128x64xf32, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<128x64xf32, strided<[64, 1], offset: ?>>, memref<128x64xf32, strided<[64, 1], offset: ?>>)
        outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_ffma %mm : (!transform.any_op) -> !transform.any_op
    transform.annotate %loop "k_loop" : !transform.any_op
    transform.yield
  }
}

// -----

// NN with a bias epilogue; thread_tile = [4, 4] over a 64x64 tile (256
// threads), block_k = 8, stages = 4. A ([M, K]) is K-innermost: 4-byte
// copies; B ([K, N]) has 16-byte aligned rows: one 16-byte copy per thread
// and K tile, bypassing L1. The bias add runs on the registers; the
// accumulator (an argument, so kept) and the output get 16-byte stores.
// Shared memory: 4 x 8 x (64 + 4) x 4 x 2 = 17408.

// CHECK-LABEL: func.func @nn_bias_f32(
//  CHECK-SAME:     %{{[a-zA-Z0-9_]+}}: memref<128x96xf32>, %{{[a-zA-Z0-9_]+}}: memref<96x128xf32>, %[[BIAS:[a-zA-Z0-9_]+]]: memref<128xf32>, %{{[a-zA-Z0-9_]+}}: memref<128x128xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<128x128xf32>)
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 17408 : i32
//       CHECK:   gpu.launch {{.*}} dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     %[[SO:.*]] = memref.subview %[[OUT]]
//       CHECK:     %[[RING_A:.*]] = memref.view {{.*}} to memref<4x8x68xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_B:.*]] = memref.view {{.*}} to memref<4x8x68xf32, #gpu.address_space<workgroup>>
//  CHECK-COUNT-2:  nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[RING_A]][%{{.*}}, %{{.*}}, %{{.*}}], 1, %{{.*}} : memref<64x96xf32
//       CHECK:     nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[RING_B]][%{{.*}}, %{{.*}}, %{{.*}}], 4, %{{.*}} {bypassL1} : memref<96x64xf32, strided<[?, 1], offset: ?>>
//  CHECK-COUNT-3:  nvvm.cp.async.commit.group
//       CHECK:     scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
//       CHECK:       nvvm.cp.async.wait.group 2
//  CHECK-COUNT-32:   vector.fma
//   CHECK-NOT:       vector.fma
//       CHECK:       scf.yield
//       CHECK:     nvvm.cp.async.wait.group 0
//       CHECK:     memref.load %{{.*}}[%{{.*}}] : memref<64xf32, strided<[1], offset: ?>>
//       CHECK:     arith.addf
//       CHECK:     vector.store %{{.*}}, %[[SO]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32, strided<[128, 1], offset: ?>>, vector<4xf32>
//   CHECK-NOT:     linalg.generic
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @nn_bias_f32(%a: memref<128x96xf32>, %b: memref<96x128xf32>, %bias: memref<128xf32>, %c: memref<128x128xf32>, %out: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [64, 96] [1, 1] : memref<128x96xf32> to memref<64x96xf32, strided<[96, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [96, 64] [1, 1] : memref<96x128xf32> to memref<96x64xf32, strided<[128, 1], offset: ?>>
    %sbias = memref.subview %bias[%n0] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    %so = memref.subview %out[%m0, %n0] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<64x96xf32, strided<[96, 1], offset: ?>>, memref<96x64xf32, strided<[128, 1], offset: ?>>)
        outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%sc, %sbias : memref<64x64xf32, strided<[128, 1], offset: ?>>, memref<64xf32, strided<[1], offset: ?>>)
        outs(%so : memref<64x64xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%v: f32, %bv: f32, %o: f32):
      %r = arith.addf %v, %bv : f32
      linalg.yield %r : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_ffma %mm {block_k = 8, thread_tile = array<i64: 4, 4>, stages = 4} : (!transform.any_op) -> !transform.any_op
    transform.annotate %loop "k_loop" : !transform.any_op
    transform.yield
  }
}

// -----

// A 100x60 problem in one block, K = 37: the tile rounds up to 128 x 64
// (16 x 8 threads of 8x8), K to three 16-deep tiles. Copies past M, N or K
// zero-fill (a 16-byte chunk takes min(4, N - n) elements), and every store
// is masked.

// CHECK-LABEL: func.func @ragged_f32(
//       CHECK:   gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) dynamic_shared_memory_size
//       CHECK:     memref.view {{.*}} to memref<3x16x132xf32, #gpu.address_space<workgroup>>
//       CHECK:     memref.view {{.*}} to memref<3x16x68xf32, #gpu.address_space<workgroup>>
//       CHECK:     arith.minui
//       CHECK:     nvgpu.device_async_copy {{.*}}, 4, %{{.*}} {bypassL1} : memref<37x60xf32
//       CHECK:     scf.for
//       CHECK:     nvvm.cp.async.wait.group 0
//       CHECK:     scf.if
//       CHECK:       memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<100x60xf32>
//   CHECK-NOT:     vector.store
//       CHECK:     gpu.terminator
func.func @ragged_f32(%a: memref<100x37xf32>, %b: memref<37x60xf32>, %c: memref<100x60xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<100x60xf32>)
    linalg.matmul ins(%a, %b : memref<100x37xf32>, memref<37x60xf32>) outs(%c : memref<100x60xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_ffma %mm : (!transform.any_op) -> !transform.any_op
    transform.annotate %loop "k_loop" : !transform.any_op
    transform.yield
  }
}
