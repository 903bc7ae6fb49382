// transform.vibegemm.align_operand_rows: operands whose rows are not a
// multiple of 16 bytes are copied, by a kernel of their own, into
// zero-padded buffers, and the GEMM's views are rebuilt on the copies; the
// wgmma rewrite then reads them with TMA.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// A is 256 x 100 bf16 (200-byte rows, padded to 104 elements), B is 100 x 128
// (256-byte rows, left alone). The copy kernel writes every element of the
// padded rows: the data, then zeros. gemm_to_wgmma accepts the padded A:
// its K loop runs into the zero tail.

// CHECK-LABEL: func.func @misaligned_k(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<256x100xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<100x128xbf16>
//       CHECK:   %[[PAD:.*]] = memref.alloc() {vibegemm.zero_padded = 100 : i64} : memref<256x104xbf16>
//       CHECK:   gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in
// Eight loads per thread and step (256 columns apart), then their stores.
//       CHECK:     scf.for %[[COL:.*]] = %[[T]] to %{{.*}} step %{{.*}} {
//       CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[COL]], %{{.*}} : index
//       CHECK:       %[[V:.*]] = scf.if %[[IN]] -> (bf16) {
//       CHECK:         memref.load %[[A]][%[[ROW]], %[[COL]]] : memref<256x100xbf16>
//       CHECK:       } else {
//       CHECK:         scf.yield %{{.*}} : bf16
// CHECK-COUNT-7:     memref.load %[[A]]
//   CHECK-NOT:       memref.load
//       CHECK:       %[[KEEP:.*]] = arith.cmpi ult, %[[COL]], %{{.*}} : index
//       CHECK:       scf.if %[[KEEP]] {
//       CHECK:         memref.store %[[V]], %[[PAD]][%[[ROW]], %[[COL]]] : memref<256x104xbf16>
// CHECK-COUNT-7:     memref.store %{{.*}}, %[[PAD]]
//   CHECK-NOT:   memref.subview %[[PAD]][0, 0] [256, 100]
//       CHECK:   %[[UA:.*]] = memref.cast %[[PAD]] : memref<256x104xbf16> to memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %[[UA]]
//       CHECK:   %[[UB:.*]] = memref.cast %[[B]] : memref<100x128xbf16> to memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %[[UB]]
//       CHECK:   gpu.launch
//       CHECK:     nvvm.wgmma.mma_async
//   CHECK-NOT:     linalg.matmul
//       CHECK:     gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @misaligned_k(%a: memref<256x100xbf16>, %b: memref<100x128xbf16>, %c: memref<256x128xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%by]
    %sa = memref.subview %a[%m0, 0] [128, 100] [1, 1] : memref<256x100xbf16> to memref<128x100xbf16, strided<[100, 1], offset: ?>>
    %sc = memref.subview %c[%m0, 0] [128, 128] [1, 1] : memref<256x128xf32> to memref<128x128xf32, strided<[128, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<128x128xf32, strided<[128, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %b : memref<128x100xbf16, strided<[100, 1], offset: ?>>, memref<100x128xbf16>)
        outs(%sc : memref<128x128xf32, strided<[128, 1], offset: ?>>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.align_operand_rows %mm : !transform.any_op
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Batched, with one buffer read as both operands (x @ x^T through the
// indexing maps): it is copied once, a block per (batch, row) pair.

// CHECK-LABEL: func.func @shared_operand_batched(
//       CHECK:   memref.alloc() {vibegemm.zero_padded = 20 : i64} : memref<2x64x24xf16>
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %[[ROWS:.*]], {{.*}})
//       CHECK:     arith.remui
//       CHECK:     arith.divui
//   CHECK-NOT:   memref.alloc
//       CHECK:   memref.subview {{.*}} : memref<2x64x24xf16> to memref<2x64x20xf16, strided<[1536, 24, 1]>>
//       CHECK:   linalg.batch_matmul
//  CHECK-SAME:     strided<[1536, 24, 1]>
//  CHECK-SAME:     strided<[1536, 24, 1]>
#mA3 = affine_map<(b, m, n, k) -> (b, m, k)>
#mB3 = affine_map<(b, m, n, k) -> (b, n, k)>
#mC3 = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @shared_operand_batched(%x: memref<2x64x20xf16>, %c: memref<2x64x64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.batch_matmul indexing_maps = [#mA3, #mB3, #mC3]
        ins(%x, %x : memref<2x64x20xf16>, memref<2x64x20xf16>) outs(%c : memref<2x64x64xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.align_operand_rows %mm : !transform.any_op
    transform.yield
  }
}

// -----

// The FFMA path names only B (`operands = [1]`): B's 30-float rows (120
// bytes) are padded to 32, so its K-tiles move as 16-byte copies; A, read
// along K with 4-byte copies whatever its alignment, is not copied. The
// tile's views are taken on the padded buffer itself, so the kernel
// receives a whole buffer.

// CHECK-LABEL: func.func @ffma_misaligned_n(
//       CHECK:   %[[PAD:.*]] = memref.alloc() {vibegemm.zero_padded = 30 : i64} : memref<99x32xf32>
//   CHECK-NOT:   memref.alloc
//       CHECK:   gpu.launch
//       CHECK:     memref.store %{{.*}}, %[[PAD]]
//       CHECK:     gpu.terminator
//   CHECK-NOT:   memref.subview %[[PAD]][0, 0] [99, 30]
//       CHECK:   gpu.launch
//       CHECK:     memref.subview %[[PAD]][0, 0] [99, 30] [1, 1] : memref<99x32xf32> to memref<99x30xf32, strided<[32, 1]>>
//       CHECK:     nvgpu.device_async_copy {{.*}}, 1, %{{.*}} : memref<64x99xf32
//       CHECK:     nvgpu.device_async_copy {{.*}}, 4, %{{.*}} {bypassL1} : memref<99x30xf32
//       CHECK:     gpu.terminator
func.func @ffma_misaligned_n(%a: memref<64x99xf32>, %b: memref<99x30xf32>, %c: memref<64x30xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sb = memref.subview %b[0, 0] [99, 30] [1, 1] : memref<99x30xf32> to memref<99x30xf32, strided<[30, 1]>>
    linalg.fill ins(%zero : f32) outs(%c : memref<64x30xf32>)
    linalg.matmul ins(%a, %sb : memref<64x99xf32>, memref<99x30xf32, strided<[30, 1]>>) outs(%c : memref<64x30xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.align_operand_rows %mm {operands = array<i64: 1>} : !transform.any_op
    %loop = transform.vibegemm.gemm_to_ffma %mm {thread_tile = array<i64: 4, 4>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// row_bytes = 128 rounds the copy's rows up to 128 bytes (100 bf16 -> 128)
// so each row starts on a cache line; it does not change which operands are
// copied: B's 272-byte rows are a multiple of 16 bytes and stay as they are.

// CHECK-LABEL: func.func @line_aligned_rows(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<64x100xbf16>, %[[B:[a-zA-Z0-9_]+]]: memref<100x136xbf16>
//       CHECK:   %[[PAD:.*]] = memref.alloc() {vibegemm.zero_padded = 100 : i64} : memref<64x128xbf16>
//   CHECK-NOT:   memref.alloc
//       CHECK:   memref.store %{{.*}}, %[[PAD]]
//       CHECK:   linalg.matmul ins(%{{.*}}, %[[B]] : memref<64x100xbf16, strided<[128, 1]>>, memref<100x136xbf16>)
func.func @line_aligned_rows(%a: memref<64x100xbf16>, %b: memref<100x136xbf16>, %c: memref<64x136xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul ins(%a, %b : memref<64x100xbf16>, memref<100x136xbf16>) outs(%c : memref<64x136xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.align_operand_rows %mm {row_bytes = 128 : i64} : !transform.any_op
    transform.yield
  }
}
