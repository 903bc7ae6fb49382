// transform.vibegemm.softmax_to_block_reduce on a block's softmax rows: an
// online max-and-sum pass, shuffles and a shared-memory table, then a pass
// that writes exp(x - max) / sum.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// bf16 rows of 8192, one row per block, 256 threads (8 warps): 16-byte
// loads and stores, computed in f32.

// CHECK-LABEL: func.func @rows_bf16(
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//   CHECK-DAG:   %[[SMEM:.*]] = arith.constant 64 : i32
//       CHECK:   gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C256]], {{.*}}) dynamic_shared_memory_size %[[SMEM]] {
//       CHECK:     %[[TABLE:.*]] = memref.view {{.*}} to memref<8x2xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.for %[[ROW:.*]] =
//       CHECK:       %[[IN:.*]] = memref.subview %{{.*}}[%[[ROW]], 0] [1, 8192] [1, 1] : memref<1x8192xbf16, strided<[8192, 1], offset: ?>> to memref<8192xbf16, strided<[1], offset: ?>>
//       CHECK:       %[[OUT:.*]] = memref.subview %{{.*}}[%[[ROW]], 0] [1, 8192] [1, 1]
//       CHECK:       %[[MS:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
//       CHECK:         vector.load %[[IN]][%{{.*}}] {alignment = 16 : i64} : memref<8192xbf16, strided<[1], offset: ?>>, vector<8xbf16>
//       CHECK:         vector.reduction <maxnumf>
//       CHECK:         math.exp {{.*}} : vector<8xf32>
//       CHECK:         vector.reduction <add>
// CHECK-COUNT-10:    gpu.shuffle  xor
//       CHECK:       scf.if
// CHECK-COUNT-2:       memref.store {{.*}}, %[[TABLE]]
//       CHECK:       gpu.barrier
//       CHECK:       memref.load %[[TABLE]]
//       CHECK:       gpu.barrier
//       CHECK:       arith.divf
//       CHECK:       scf.for
//       CHECK:         math.exp
//       CHECK:         arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
//       CHECK:         vector.store %{{.*}}, %[[OUT]][%{{.*}}] {alignment = 16 : i64} : memref<8192xbf16, strided<[1], offset: ?>>, vector<8xbf16>
//   CHECK-NOT:     linalg.softmax
//       CHECK:     gpu.terminator
func.func @rows_bf16(%x: memref<64x8192xbf16>, %y: memref<64x8192xbf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sx0 = memref.subview %x[%bx, 0] [1, 8192] [1, 1] : memref<64x8192xbf16> to memref<1x8192xbf16, strided<[8192, 1], offset: ?>>
    %sy0 = memref.subview %y[%bx, 0] [1, 8192] [1, 1] : memref<64x8192xbf16> to memref<1x8192xbf16, strided<[8192, 1], offset: ?>>
    linalg.softmax dimension(1) ins(%sx0 : memref<1x8192xbf16, strided<[8192, 1], offset: ?>>) outs(%sy0 : memref<1x8192xbf16, strided<[8192, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.softmax_to_block_reduce %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f32 rows of 1001 (not a multiple of 4): element accesses; 3 rows per block
// with a ragged last block, processed one after the other.

// CHECK-LABEL: func.func @ragged_f32(
//       CHECK:     %[[ROWS:.*]] = memref.dim
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %[[ROWS]]
//   CHECK-NOT:       vector.load
//       CHECK:       memref.load {{.*}} : memref<1001xf32, strided<[1], offset: ?>>
//       CHECK:       memref.store {{.*}} : memref<1001xf32, strided<[1], offset: ?>>
func.func @ragged_f32(%x: memref<5x1001xf32>, %y: memref<5x1001xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %r0 = affine.apply affine_map<()[s0] -> (s0 * 3)>()[%bx]
    %rows = affine.min affine_map<()[s0] -> (-(s0 * 3) + 5, 3)>()[%bx]
    %sx0 = memref.subview %x[%r0, 0] [%rows, 1001] [1, 1] : memref<5x1001xf32> to memref<?x1001xf32, strided<[1001, 1], offset: ?>>
    %sy0 = memref.subview %y[%r0, 0] [%rows, 1001] [1, 1] : memref<5x1001xf32> to memref<?x1001xf32, strided<[1001, 1], offset: ?>>
    linalg.softmax dimension(1) ins(%sx0 : memref<?x1001xf32, strided<[1001, 1], offset: ?>>) outs(%sy0 : memref<?x1001xf32, strided<[1001, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.softmax_to_block_reduce %sm {threads = 128} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batched tile (the batch tiled to 1): the leading unit dimension is
// dropped and the rows are read with 16-byte loads as in 2-D.
// CHECK-LABEL: func.func @batched_rows_bf16(
//       CHECK:   gpu.launch
//       CHECK:     %[[IN2:.*]] = memref.subview %{{.*}}[0, 0, 0] [1, 1, 4096] [1, 1, 1] : memref<1x1x4096xbf16, strided<[131072, 4096, 1], offset: ?>> to memref<1x4096xbf16, strided<[4096, 1], offset: ?>>
//       CHECK:     scf.for %[[ROW:.*]] =
//       CHECK:       memref.subview %{{.*}}[%[[ROW]], 0] [1, 4096] [1, 1] : memref<1x4096xbf16, strided<[4096, 1], offset: ?>> to memref<4096xbf16, strided<[1], offset: ?>>
//       CHECK:       vector.load {{.*}} {alignment = 16 : i64} : memref<4096xbf16, strided<[1], offset: ?>>, vector<8xbf16>
//   CHECK-NOT:     linalg.softmax
//       CHECK:     gpu.terminator
func.func @batched_rows_bf16(%x: memref<8x32x4096xbf16>, %y: memref<8x32x4096xbf16>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c8, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sx0 = memref.subview %x[%by, %bx, 0] [1, 1, 4096] [1, 1, 1] : memref<8x32x4096xbf16> to memref<1x1x4096xbf16, strided<[131072, 4096, 1], offset: ?>>
    %sy0 = memref.subview %y[%by, %bx, 0] [1, 1, 4096] [1, 1, 1] : memref<8x32x4096xbf16> to memref<1x1x4096xbf16, strided<[131072, 4096, 1], offset: ?>>
    linalg.softmax dimension(2) ins(%sx0 : memref<1x1x4096xbf16, strided<[131072, 4096, 1], offset: ?>>) outs(%sy0 : memref<1x1x4096xbf16, strided<[131072, 4096, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.softmax_to_block_reduce %sm {threads = 128} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
