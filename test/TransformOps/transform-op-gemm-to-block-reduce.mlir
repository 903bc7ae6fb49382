// transform.vibegemm.gemm_to_block_reduce on a block's few-output GEMM
// tile: the threads split K (16-byte loads where both operands allow, four
// chunks in flight), warp shuffles and a shared-memory table reduce, and
// one thread per output runs the epilogue chain.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// bf16 matrix-vector product, one output row per block, 128 threads: A's
// row and the whole B vector are read 8 elements at a time; the unrolled
// loop has four chunks in flight, a remainder loop finishes; 4 warps x 1
// output of f32 in shared memory.

// CHECK-LABEL: func.func @matvec_bf16(
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 16 : i32
//       CHECK:   gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C128]], {{.*}}) dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     %[[TID:.*]] = gpu.thread_id  x
//       CHECK:     %[[TABLE:.*]] = memref.view {{.*}} to memref<4x1xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[AROW:.*]] = memref.subview {{.*}} to memref<4096xbf16, strided<[1], offset: ?>>
//       CHECK:     %[[BCOL:.*]] = memref.subview {{.*}} : memref<4096x1xbf16> to memref<4096xbf16, strided<[1]>>
//       CHECK:     %[[MAIN:.*]] = scf.for %{{.*}} = %[[TID]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK-COUNT-4:     vector.load %[[AROW]][%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16, strided<[1], offset: ?>>, vector<8xbf16>
//       CHECK:       scf.yield
//       CHECK:     %[[REST:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[MAIN]]) -> (vector<8xf32>) {
//       CHECK:     %[[SUM:.*]] = vector.reduction <add>, %[[REST]] : vector<8xf32> into f32
//       CHECK:     gpu.shuffle  xor %[[SUM]]
// CHECK-COUNT-4:   gpu.shuffle  xor
//       CHECK:     scf.if
//       CHECK:       memref.store %{{.*}}, %[[TABLE]]
//       CHECK:     gpu.barrier
//       CHECK:     scf.if
// CHECK-COUNT-4:     memref.load %[[TABLE]]
//       CHECK:       arith.truncf %{{.*}} : f32 to bf16
//       CHECK:       memref.store %{{.*}} : memref<1x1xbf16, strided<[1, 1], offset: ?>>
//   CHECK-NOT:     linalg.matmul
//   CHECK-NOT:     linalg.generic
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @matvec_bf16(%a: memref<256x4096xbf16>, %b: memref<4096x1xbf16>, %c: memref<256x1xbf16>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c256, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %a[%bx, 0] [1, 4096] [1, 1] : memref<256x4096xbf16> to memref<1x4096xbf16, strided<[4096, 1], offset: ?>>
    %sc = memref.subview %c[%bx, 0] [1, 1] [1, 1] : memref<256x1xbf16> to memref<1x1xbf16, strided<[1, 1], offset: ?>>
    %acc = memref.alloc() : memref<1x1xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<1x1xf32>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %b : memref<1x4096xbf16, strided<[4096, 1], offset: ?>>, memref<4096x1xbf16>)
        outs(%acc : memref<1x1xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<1x1xf32>) outs(%sc : memref<1x1xbf16, strided<[1, 1], offset: ?>>) {
    ^bb0(%v: f32, %o: bf16):
      %t = arith.truncf %v : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<1x1xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_block_reduce %mm {threads = 128} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f32, K = 1001 (rows not 16-byte aligned: element loads), two rows per
// block with a ragged last block (M = 5), no fill: the second row's index
// is clamped into the tile for loading, the old output is added, and the
// store is masked. 2 rows x 1 output, 256 threads (8 warps).

// CHECK-LABEL: func.func @ragged_f32(
//       CHECK:   gpu.launch
//       CHECK:     memref.view {{.*}} to memref<8x2xf32, #gpu.address_space<workgroup>>
//       CHECK:     arith.minui
//       CHECK:     scf.for {{.*}} -> (f32, f32) {
//   CHECK-NOT:       vector.load
//       CHECK:       memref.load {{.*}} : memref<1001xf32, strided<[1], offset: ?>>
//       CHECK:     gpu.barrier
//       CHECK:     scf.if
//       CHECK:       scf.if
//       CHECK:         %[[OLD:.*]] = memref.load %{{.*}} : memref<?x1xf32, strided<[1, 1], offset: ?>>
//       CHECK:         arith.addf %[[OLD]]
//       CHECK:         memref.store
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @ragged_f32(%a: memref<5x1001xf32>, %b: memref<1001x1xf32>, %c: memref<5x1xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%bx]
    %rows = affine.min affine_map<()[s0] -> (-(s0 * 2) + 5, 2)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [%rows, 1001] [1, 1] : memref<5x1001xf32> to memref<?x1001xf32, strided<[1001, 1], offset: ?>>
    %sc = memref.subview %c[%m0, 0] [%rows, 1] [1, 1] : memref<5x1xf32> to memref<?x1xf32, strided<[1, 1], offset: ?>>
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %b : memref<?x1001xf32, strided<[1001, 1], offset: ?>>, memref<1001x1xf32>)
        outs(%sc : memref<?x1xf32, strided<[1, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_block_reduce %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A vector times a matrix stored [N, K] (M = 1, B transposed through its
// indexing map): one output column per block, both read along K.

// CHECK-LABEL: func.func @vecmat_nt_f16(
//       CHECK:     memref.subview {{.*}} : memref<1x2048xf16> to memref<2048xf16, strided<[1]>>
//       CHECK:     memref.subview {{.*}} to memref<2048xf16, strided<[1], offset: ?>>
//       CHECK:     vector.load {{.*}} vector<8xf16>
//       CHECK:     arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @vecmat_nt_f16(%a: memref<1x2048xf16>, %b: memref<512x2048xf16>, %c: memref<1x512xf32>) {
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c512, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sb = memref.subview %b[%bx, 0] [1, 2048] [1, 1] : memref<512x2048xf16> to memref<1x2048xf16, strided<[2048, 1], offset: ?>>
    %sc = memref.subview %c[0, %bx] [1, 1] [1, 1] : memref<1x512xf32> to memref<1x1xf32, strided<[512, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<1x1xf32, strided<[512, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %sb : memref<1x2048xf16>, memref<1x2048xf16, strided<[2048, 1], offset: ?>>)
        outs(%sc : memref<1x1xf32, strided<[512, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_block_reduce %mm {threads = 64} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
