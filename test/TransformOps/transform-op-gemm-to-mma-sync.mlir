// transform.vibegemm.gemm_to_mma_sync on a block's bufferized GEMM tile: the
// cp.async ring in dynamic shared memory, ldmatrix fragments, m16n8k16
// mma.sync on f32 register accumulators, and the epilogue on the registers.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// bf16 NT GEMM (B stored [N, K]) with a fill, default options: block_k = 32,
// warps = [2, 2] (128 threads), stages = 3. Each warp owns a 16x16 tile: one
// A fragment and two B fragments per k16 step, eight f32 accumulators.
// Shared memory: 3 stages x (32 + 32) rows x (32 + 8) columns x 2 bytes.

// CHECK-LABEL: func.func @nt_bf16(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<64x64xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<64x64xbf16>, %[[C:[a-zA-Z0-9_]+]]: memref<64x64xf32>)
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 15360 : i32
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[C128]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     %[[SA:.*]] = memref.subview %[[A]]
//       CHECK:     %[[SB:.*]] = memref.subview %[[B]]
//       CHECK:     %[[SC:.*]] = memref.subview %[[C]]
//   CHECK-NOT:     linalg.fill
//       CHECK:     gpu.thread_id x
//       CHECK:     %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_A:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_B:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[GA:.*]] = memref.cast %[[SA]] : memref<32x64xbf16, strided<[64, 1], offset: ?>> to memref<32x64xbf16, strided<[?, 1], offset: ?>>
//       CHECK:     %[[GB:.*]] = memref.cast %[[SB]] : memref<32x64xbf16, strided<[64, 1], offset: ?>> to memref<32x64xbf16, strided<[?, 1], offset: ?>>
// The prologue puts stages - 1 = 2 K-tiles in flight.
//       CHECK:     nvgpu.device_async_copy %[[GA]][%{{.*}}, %{{.*}}], %[[RING_A]][%{{.*}}, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<32x64xbf16, strided<[?, 1], offset: ?>> to memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//       CHECK:     nvgpu.device_async_copy %[[GB]][%{{.*}}, %{{.*}}], %[[RING_B]][%{{.*}}, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:     nvgpu.device_async_copy %[[GA]][
//       CHECK:     nvgpu.device_async_copy %[[GB]][
//       CHECK:     nvvm.cp.async.commit.group
//   CHECK-NOT:     nvvm.cp.async.commit.group
//       CHECK:     %[[ACC:.*]]:8 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
//       CHECK:       nvvm.cp.async.wait.group 1
//  CHECK-NEXT:       gpu.barrier
//       CHECK:       nvgpu.device_async_copy %[[GA]][
//       CHECK:       nvgpu.device_async_copy %[[GB]][
//       CHECK:       nvvm.cp.async.commit.group
// Two k16 steps per 32-wide K-tile, each one ldmatrix.x4 per operand and two
// mma.sync; bf16 pairs go to NVVM as i32.
//       CHECK:       nvgpu.ldmatrix %[[RING_A]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<3x32x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:       vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
//       CHECK:       nvgpu.ldmatrix %[[RING_B]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<3x32x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//  CHECK-COUNT-2:    nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
//       CHECK:       nvgpu.ldmatrix %[[RING_A]][
//       CHECK:       nvgpu.ldmatrix %[[RING_B]][
//  CHECK-COUNT-2:    nvvm.mma.sync
//   CHECK-NOT:       nvvm.mma.sync
//       CHECK:       scf.yield
//  CHECK-NEXT:     } {k_loop}
//  CHECK-NEXT:     nvvm.cp.async.wait.group 0
// One 2 x f32 store per accumulator pair, straight into the output tile.
//       CHECK:     vector.store %{{.*}}, %[[SC]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<32x32xf32, strided<[64, 1], offset: ?>>, vector<2xf32>
//  CHECK-COUNT-3:  vector.store %{{.*}}, %[[SC]][
//   CHECK-NOT:     vector.store
//   CHECK-NOT:     linalg.matmul
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @nt_bf16(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<32x64xbf16, strided<[64, 1], offset: ?>>, memref<32x64xbf16, strided<[64, 1], offset: ?>>)
        outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    // The result handle is the K loop.
    transform.annotate %loop "k_loop" : !transform.any_op
    transform.yield
  }
}

// -----

// f16 with A transposed (stored [K, M]): A's shared tile is [k][m], read with
// ldmatrix.trans; B ([N, K]) is not transposed. A 64x32 block tile with
// stages = 4: the A ring is 4 x 32 x (64 + 8), the B ring 4 x 32 x (32 + 8),
// 28672 bytes in all, and the loop waits until at most 2 groups are pending.

// CHECK-LABEL: func.func @a_transposed_f16(
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 28672 : i32
//       CHECK:   gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C128]], {{.*}}) dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     %[[RING_A:.*]] = memref.view {{.*}} to memref<4x32x72xf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_B:.*]] = memref.view {{.*}} to memref<4x32x40xf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[GA:.*]] = memref.cast %{{.*}} : memref<64x64xf16, strided<[128, 1], offset: ?>> to memref<64x64xf16, strided<[?, 1], offset: ?>>
//       CHECK:     nvgpu.device_async_copy %[[GA]][%{{.*}}, %{{.*}}], %[[RING_A]][%{{.*}}, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
//  CHECK-COUNT-3:  nvvm.cp.async.commit.group
//   CHECK-NOT:     nvvm.cp.async.commit.group
//       CHECK:     scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
//       CHECK:       nvvm.cp.async.wait.group 2
//       CHECK:       nvgpu.ldmatrix %[[RING_A]][{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<4x32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
//       CHECK:       nvgpu.ldmatrix %[[RING_A]][{{.*}}] {numTiles = 4 : i32, transpose = true}
//       CHECK:       nvgpu.ldmatrix %[[RING_B]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<4x32x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
//   CHECK-NOT:       vector.bitcast
//       CHECK:       nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
//       CHECK:       scf.yield
//       CHECK:     nvvm.cp.async.wait.group 0
//   CHECK-NOT:     linalg.matmul
//       CHECK:     gpu.terminator
#mAt = affine_map<(m, n, k) -> (k, m)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @a_transposed_f16(%a: memref<64x128xf16>, %b: memref<64x64xf16>, %c: memref<128x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %sa = memref.subview %a[0, %m0] [64, 64] [1, 1] : memref<64x128xf16> to memref<64x64xf16, strided<[128, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [32, 64] [1, 1] : memref<64x64xf16> to memref<32x64xf16, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [64, 32] [1, 1] : memref<128x64xf32> to memref<64x32xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<64x32xf32, strided<[64, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mAt, #mBt, #mC]
        ins(%sa, %sb : memref<64x64xf16, strided<[128, 1], offset: ?>>, memref<32x64xf16, strided<[64, 1], offset: ?>>)
        outs(%sc : memref<64x32xf32, strided<[64, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {block_k = 32, warps = array<i64: 2, 2>, stages = 4} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A fused epilogue chain: the GEMM accumulates into a block-local buffer,
// a generic adds the bias into a second block-local buffer, and another
// applies ReLU and truncates to bf16 into the output tile. Both buffers,
// their deallocs and the generics disappear: the chain runs on the loop's
// results and only bf16 pairs are stored.

// CHECK-LABEL: func.func @fused_epilogue(
//  CHECK-SAME:     %[[BIAS:[a-zA-Z0-9_]+]]: memref<64xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<64x64xbf16>)
//   CHECK-NOT:     memref.alloc
//   CHECK-NOT:     linalg.
//       CHECK:     %[[ACC:.*]]:8 = scf.for
//       CHECK:     nvvm.cp.async.wait.group 0
//   CHECK-NOT:     memref.alloc
//   CHECK-NOT:     linalg.
//       CHECK:     %[[SBIAS:.*]] = memref.subview %[[BIAS]]
//   CHECK-NOT:     memref.alloc
//   CHECK-NOT:     linalg.
//       CHECK:     %[[SOUT:.*]] = memref.subview %[[OUT]]
//       CHECK:     %[[B0:.*]] = memref.load %[[SBIAS]][%{{.*}}] : memref<32xf32, strided<[1], offset: ?>>
//       CHECK:     %[[S0:.*]] = arith.addf %[[ACC]]#0, %[[B0]] : f32
//       CHECK:     %[[R0:.*]] = arith.maximumf %[[S0]], %{{.*}} : f32
//       CHECK:     %[[T0:.*]] = arith.truncf %[[R0]] : f32 to bf16
//       CHECK:     %[[B1:.*]] = memref.load %[[SBIAS]][
//       CHECK:     %[[S1:.*]] = arith.addf %[[ACC]]#1, %[[B1]] : f32
//       CHECK:     %[[R1:.*]] = arith.maximumf %[[S1]], %{{.*}} : f32
//       CHECK:     %[[T1:.*]] = arith.truncf %[[R1]] : f32 to bf16
//       CHECK:     %[[PAIR:.*]] = vector.from_elements %[[T0]], %[[T1]] : vector<2xbf16>
//       CHECK:     vector.store %[[PAIR]], %[[SOUT]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<32x32xbf16, strided<[64, 1], offset: ?>>, vector<2xbf16>
//  CHECK-COUNT-3:  vector.store %{{.*}}, %[[SOUT]][{{.*}}vector<2xbf16>
//   CHECK-NOT:     vector.store
//   CHECK-NOT:     memref.store
//   CHECK-NOT:     memref.dealloc
//   CHECK-NOT:     linalg.
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @fused_epilogue(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %bias: memref<64xf32>, %out: memref<64x64xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<32x64xbf16, strided<[64, 1], offset: ?>>, memref<32x64xbf16, strided<[64, 1], offset: ?>>)
        outs(%acc : memref<32x32xf32>)
    %sbias = memref.subview %bias[%n0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
    %biased = memref.alloc() : memref<32x32xf32>
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %sbias : memref<32x32xf32>, memref<32xf32, strided<[1], offset: ?>>)
        outs(%biased : memref<32x32xf32>) {
    ^bb0(%v: f32, %bv: f32, %o: f32):
      %s = arith.addf %v, %bv : f32
      linalg.yield %s : f32
    }
    %sout = memref.subview %out[%m0, %n0] [32, 32] [1, 1] : memref<64x64xbf16> to memref<32x32xbf16, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%biased : memref<32x32xf32>)
        outs(%sout : memref<32x32xbf16, strided<[64, 1], offset: ?>>) {
    ^bb0(%v: f32, %o: bf16):
      %z = arith.constant 0.0 : f32
      %r = arith.maximumf %v, %z : f32
      %t = arith.truncf %r : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %biased : memref<32x32xf32>
    memref.dealloc %acc : memref<32x32xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// No fill: the accumulators start from the output tile's contents, loaded
// before the prologue's copies and fed to the loop as its initial values.

// CHECK-LABEL: func.func @no_fill(
//       CHECK:     %[[SC:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}] [32, 32] [1, 1] : memref<64x64xf32>
//       CHECK:     %[[V0:.*]] = memref.load %[[SC]][%{{.*}}, %{{.*}}] : memref<32x32xf32, strided<[64, 1], offset: ?>>
//       CHECK:     %[[V1:.*]] = memref.load %[[SC]][
//  CHECK-COUNT-6:  memref.load %[[SC]][
//   CHECK-NOT:     memref.load
//       CHECK:     nvgpu.device_async_copy
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[V0]], %{{.*}} = %[[V1]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
//       CHECK:     vector.store %{{.*}}, %[[SC]][
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @no_fill(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<32x64xbf16, strided<[64, 1], offset: ?>>, memref<32x64xbf16, strided<[64, 1], offset: ?>>)
        outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Ragged M, N and K: 100x72 output in 32x32 tiles (affine.min extents), and
// K = 40, which block_k = 32 does not divide. Copies past an edge read
// nothing (0 source elements, zero-filled) from a clamped address; every
// store is guarded by the tile's extents.

// CHECK-LABEL: func.func @ragged(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<100x40xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<72x40xbf16>, %[[C:[a-zA-Z0-9_]+]]: memref<100x72xf32>)
//       CHECK:     %[[SA:.*]] = memref.subview %[[A]][{{.*}}] [%{{.*}}, 40] [1, 1] : memref<100x40xbf16> to memref<?x40xbf16, strided<[40, 1], offset: ?>>
//       CHECK:     %[[SB:.*]] = memref.subview %[[B]][{{.*}}] [%{{.*}}, 40] [1, 1] : memref<72x40xbf16> to memref<?x40xbf16, strided<[40, 1], offset: ?>>
//       CHECK:     %[[SC:.*]] = memref.subview %[[C]]
// The shared tiles are padded to the full 32 rows.
//       CHECK:     memref.view {{.*}} to memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[M:.*]] = memref.dim %[[SA]], %{{.*}} : memref<?x40xbf16, strided<[40, 1], offset: ?>>
//       CHECK:     %[[GA:.*]] = memref.cast %[[SA]]
//       CHECK:     %[[N:.*]] = memref.dim %[[SB]], %{{.*}} : memref<?x40xbf16, strided<[40, 1], offset: ?>>
//       CHECK:     %[[GB:.*]] = memref.cast %[[SB]]
// A copy: row < M and its K chunk < 40.
//       CHECK:     %[[ROW_OK:.*]] = arith.cmpi ult, %[[ROW:.*]], %[[M]] : index
//       CHECK:     %[[K_OK:.*]] = arith.cmpi ult, %[[K:.*]], %{{.*}} : index
//       CHECK:     %[[OK:.*]] = arith.andi %[[ROW_OK]], %[[K_OK]] : i1
//       CHECK:     %[[SRC:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
//       CHECK:     %[[SROW:.*]] = arith.select %[[OK]], %[[ROW]], %{{.*}} : index
//       CHECK:     %[[SK:.*]] = arith.select %[[OK]], %[[K]], %{{.*}} : index
//       CHECK:     nvgpu.device_async_copy %[[GA]][%[[SROW]], %[[SK]]], %{{.*}}[%{{.*}}, %[[ROW]], %{{.*}}], 8, %[[SRC]] {bypassL1}
// B copy: the same with N.
//       CHECK:     arith.cmpi ult, %{{.*}}, %[[N]] : index
//       CHECK:     nvgpu.device_async_copy %[[GB]][
//       CHECK:     %[[ACC:.*]]:8 = scf.for
//       CHECK:     nvvm.cp.async.wait.group 0
//   CHECK-NOT:     vector.store
//       CHECK:     arith.cmpi ult, %{{.*}}, %[[M]] : index
//       CHECK:     arith.cmpi ult, %{{.*}}, %[[N]] : index
//       CHECK:     scf.if %{{.*}} {
//  CHECK-NEXT:       memref.store %[[ACC]]#0, %[[SC]][%{{.*}}, %{{.*}}] : memref<?x?xf32, strided<[72, 1], offset: ?>>
//  CHECK-NEXT:     }
//       CHECK:     scf.if %{{.*}} {
//  CHECK-NEXT:       memref.store %[[ACC]]#1, %[[SC]][
//  CHECK-COUNT-6:  memref.store %[[ACC]]#{{[2-7]}}, %[[SC]][
//   CHECK-NOT:     vector.store
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @ragged(%a: memref<100x40xbf16>, %b: memref<72x40xbf16>, %c: memref<100x72xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %ms = affine.min affine_map<()[s0] -> (-s0 * 32 + 100, 32)>()[%by]
    %ns = affine.min affine_map<()[s0] -> (-s0 * 32 + 72, 32)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [%ms, 40] [1, 1] : memref<100x40xbf16> to memref<?x40xbf16, strided<[40, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [%ns, 40] [1, 1] : memref<72x40xbf16> to memref<?x40xbf16, strided<[40, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [%ms, %ns] [1, 1] : memref<100x72xf32> to memref<?x?xf32, strided<[72, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<?x?xf32, strided<[72, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<?x40xbf16, strided<[40, 1], offset: ?>>, memref<?x40xbf16, strided<[40, 1], offset: ?>>)
        outs(%sc : memref<?x?xf32, strided<[72, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batch_matmul with its batch tiled to 1, f16, B stored [K, N]: the batch
// index is 0 in every access and B is read with ldmatrix.trans.

// CHECK-LABEL: func.func @batch_of_one(
//       CHECK:     %[[SC:.*]] = memref.subview %{{.*}} : memref<4x32x32xf32> to
//       CHECK:     %[[RING_A:.*]] = memref.view {{.*}} to memref<3x32x40xf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_B:.*]] = memref.view {{.*}} to memref<3x32x40xf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[GA:.*]] = memref.cast %{{.*}} : memref<1x32x64xf16, strided<[2048, 64, 1], offset: ?>> to memref<1x32x64xf16, strided<[?, ?, 1], offset: ?>>
//       CHECK:     nvgpu.device_async_copy %[[GA]][%c0{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}]
//       CHECK:     scf.for
//       CHECK:       nvgpu.ldmatrix %[[RING_A]][{{.*}}] {numTiles = 4 : i32, transpose = false}
//       CHECK:       nvgpu.ldmatrix %[[RING_B]][{{.*}}] {numTiles = 4 : i32, transpose = true}
//       CHECK:       nvvm.mma.sync
//       CHECK:     vector.store %{{.*}}, %[[SC]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<1x32x32xf32, strided<[1024, 32, 1], offset: ?>>, vector<2xf32>
//   CHECK-NOT:     linalg.batch_matmul
//       CHECK:     gpu.terminator
func.func @batch_of_one(%a: memref<4x32x64xf16>, %b: memref<4x64x32xf16>, %c: memref<4x32x32xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c4)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %a[%bz, 0, 0] [1, 32, 64] [1, 1, 1] : memref<4x32x64xf16> to memref<1x32x64xf16, strided<[2048, 64, 1], offset: ?>>
    %sb = memref.subview %b[%bz, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xf16> to memref<1x64x32xf16, strided<[2048, 32, 1], offset: ?>>
    %sc = memref.subview %c[%bz, 0, 0] [1, 32, 32] [1, 1, 1] : memref<4x32x32xf32> to memref<1x32x32xf32, strided<[1024, 32, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<1x32x32xf32, strided<[1024, 32, 1], offset: ?>>)
    linalg.batch_matmul ins(%sa, %sb : memref<1x32x64xf16, strided<[2048, 64, 1], offset: ?>>, memref<1x64x32xf16, strided<[2048, 32, 1], offset: ?>>)
        outs(%sc : memref<1x32x32xf32, strided<[1024, 32, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A silenceable failure (f32 operands) suppressed by the enclosing sequence
// leaves the payload as it was: one thread, no shared memory, the GEMM.

// CHECK-LABEL: func.func @unchanged_on_failure(
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[ONE:.*]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) {
//  CHECK-NEXT:     linalg.matmul
//  CHECK-NEXT:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @unchanged_on_failure(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%arg: !transform.any_op):
      %mm = transform.structured.match ops{["linalg.matmul"]} in %arg : (!transform.any_op) -> !transform.any_op
      %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}

// -----

// K = 36: A's rows ([M, K], 72 bytes) cannot be copied 16 bytes at a time,
// so A's chunks are loaded element by element (zero past K), packed into
// 8-element vectors and stored to its ring; the next K-tile's loads are
// issued before the MMAs and stored after them. B ([K, N], N = 32) keeps
// cp.async and is read with ldmatrix.trans.

// CHECK-LABEL: func.func @misaligned_k(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<32x36xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<36x32xbf16>
//       CHECK:     %[[RING_A:.*]] = memref.view {{.*}} to memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[RING_B:.*]] = memref.view {{.*}} to memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//       CHECK:     %[[GA:.*]] = memref.cast %[[A]]
//       CHECK:     %[[GB:.*]] = memref.cast %[[B]]
//   CHECK-NOT:     nvgpu.device_async_copy %[[GA]][
//       CHECK:     nvgpu.device_async_copy %[[GB]][
//   CHECK-NOT:     nvgpu.device_async_copy %[[GA]][
//       CHECK:     %[[A0:.*]] = memref.load %[[GA]][%{{.*}}, %{{.*}}] : memref<32x36xbf16, strided<[?, 1], offset: ?>>
//       CHECK:     %[[Z0:.*]] = arith.select %{{.*}}, %[[A0]], %{{.*}} : bf16
//  CHECK-COUNT-7:  memref.load %[[GA]][
//       CHECK:     %[[CHUNK:.*]] = vector.from_elements %[[Z0]], {{.*}} : vector<8xbf16>
//       CHECK:     vector.store %[[CHUNK]], %[[RING_A]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<3x32x40xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
//       CHECK:     nvvm.cp.async.commit.group
//   CHECK-NOT:     nvgpu.device_async_copy %[[GA]][
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:     scf.for
//       CHECK:       gpu.barrier
//       CHECK:       nvgpu.device_async_copy %[[GB]][
//       CHECK:       %[[NEXT:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
//       CHECK:       nvvm.cp.async.commit.group
//       CHECK:       nvgpu.ldmatrix %[[RING_A]][{{.*}}] {numTiles = 4 : i32, transpose = false}
//       CHECK:       nvgpu.ldmatrix %[[RING_B]][{{.*}}] {numTiles = 4 : i32, transpose = true}
//       CHECK:       nvvm.mma.sync
//       CHECK:       vector.store %[[NEXT]], %[[RING_A]][
//   CHECK-NOT:       nvvm.mma.sync
//       CHECK:       scf.yield
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @misaligned_k(%a: memref<32x36xbf16>, %b: memref<36x32xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<32x36xbf16>, memref<36x32xbf16>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A view that ends inside a 16-byte chunk along K (K = 36 of a 64-wide
// tensor) is loaded through registers: a partial cp.async chunk would add
// products from beyond the view.
// CHECK-LABEL: func.func @k_view(
//   CHECK-NOT:     nvgpu.device_async_copy
//       CHECK:     memref.load
//       CHECK:     scf.for
//   CHECK-NOT:     nvgpu.device_async_copy
//       CHECK:     nvvm.mma.sync
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @k_view(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %a[0, 0] [32, 36] [1, 1] : memref<32x64xbf16> to memref<32x36xbf16, strided<[64, 1]>>
    %sb = memref.subview %b[0, 0] [32, 36] [1, 1] : memref<32x64xbf16> to memref<32x36xbf16, strided<[64, 1]>>
    linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<32x36xbf16, strided<[64, 1]>>, memref<32x36xbf16, strided<[64, 1]>>)
        outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
