// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s
// transform.vibegemm.gemm_to_wgmma: a [rows, cols] tile the epilogue reads
// (a residual) is prefetched into L2 by the consumers 4 K-tiles before the
// last, so the epilogue's loads do not wait on HBM; a bias row is not.

// K = 512 is 8 K-tiles of 64: the prefetch runs at K-tile 4. The residual's
// subview comes after the matmul (as tiling a consumer makes it): it is
// cloned inside the main loop. Each of the 128 rows spans at most
// 256 * 2 / 128 + 1 = 5 lines, dealt to the 256 consumer threads.

// CHECK-LABEL: func.func @prefetch_residual(
//       CHECK:   scf.for %[[KT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     nvvm.wgmma.commit.group.sync.aligned
//       CHECK:     %[[AT:.*]] = arith.cmpi eq, %[[KT]], %c4{{.*}} : index
//       CHECK:     scf.if %[[AT]] {
//       CHECK:       %[[SR:.*]] = memref.subview %{{.*}} : memref<512x1024xbf16> to memref<128x256xbf16, strided<[1024, 1], offset: ?>>
//       CHECK:       memref.extract_strided_metadata %[[SR]]
//       CHECK:       memref.extract_aligned_pointer_as_index %[[SR]]
//       CHECK:       arith.muli %{{.*}}, %c5{{.*}} : index
//       CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256{{.*}} {
//       CHECK:         arith.minui
//       CHECK:         llvm.inttoptr
//       CHECK:         nvvm.prefetch level = L2, %{{.*}} : !llvm.ptr
//       CHECK:     } {k_loop}
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @prefetch_residual(%a: memref<512x512xbf16>, %b: memref<1024x512xbf16>, %r: memref<512x1024xbf16>, %c: memref<512x1024xbf16>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 256)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [128, 512] [1, 1] : memref<512x512xbf16> to memref<128x512xbf16, strided<[512, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [256, 512] [1, 1] : memref<1024x512xbf16> to memref<256x512xbf16, strided<[512, 1], offset: ?>>
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<128x512xbf16, strided<[512, 1], offset: ?>>, memref<256x512xbf16, strided<[512, 1], offset: ?>>)
        outs(%acc : memref<128x256xf32>)
    %sr = memref.subview %r[%m0, %n0] [128, 256] [1, 1] : memref<512x1024xbf16> to memref<128x256xbf16, strided<[1024, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 256] [1, 1] : memref<512x1024xbf16> to memref<128x256xbf16, strided<[1024, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %sr : memref<128x256xf32>, memref<128x256xbf16, strided<[1024, 1], offset: ?>>) outs(%sc : memref<128x256xbf16, strided<[1024, 1], offset: ?>>) {
    ^bb0(%v: f32, %res: bf16, %o: bf16):
      %e = arith.extf %res : bf16 to f32
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to bf16
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Two K-tiles (fewer than the lead): the prefetch runs at the first. A
// bias row is read too, but only the residual is prefetched.

// CHECK-LABEL: func.func @prefetch_short_k_not_bias(
//       CHECK:     %[[AT:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
//       CHECK:     scf.if %[[AT]] {
// CHECK-COUNT-1:     nvvm.prefetch
//   CHECK-NOT:       nvvm.prefetch
//       CHECK:     } {k_loop}
//   CHECK-NOT:   nvvm.prefetch
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @prefetch_short_k_not_bias(%a: memref<128x128xbf16>, %b: memref<256x128xbf16>, %bias: memref<256xbf16>, %r: memref<128x256xbf16>, %c: memref<128x256xbf16>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<128x128xbf16>, memref<256x128xbf16>)
        outs(%acc : memref<128x256xf32>)
    linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %bias, %r : memref<128x256xf32>, memref<256xbf16>, memref<128x256xbf16>) outs(%c : memref<128x256xbf16>) {
    ^bb0(%v: f32, %bv: bf16, %res: bf16, %o: bf16):
      %be = arith.extf %bv : bf16 to f32
      %e = arith.extf %res : bf16 to f32
      %s = arith.addf %v, %be : f32
      %s2 = arith.addf %s, %e : f32
      %t = arith.truncf %s2 : f32 to bf16
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
    %loop = transform.vibegemm.gemm_to_wgmma %mm {consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
