// transform.vibegemm.gemm_to_mma_sync with f32_precision on f32 operands:
// 4-element cp.async copies into f32 rings, fragments read element by
// element and rounded with cvt.rna.tf32.f32, m16n8k8 .tf32 MMAs, and the
// enclosing function marked for the launch plan.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file | FileCheck %s

// TF32, NN (B stored [K, N]), default options: block_k = 32, warps = [2, 2],
// stages = 3; each warp owns a 16x16 tile (one A and two B fragments per k8
// step). A's tile is [m][k], padded by 4 floats (16 bytes): 3 x 32 x 36; B's
// is [k][n], padded by 8 floats (32 bytes): 3 x 32 x 40. Four k8 steps per
// K-tile, two MMAs each.
// CHECK-LABEL: func.func @nn_tf32(
//  CHECK-SAME:     attributes {vibegemm.f32_precision = "tf32"}
//       CHECK:   %[[RING_A:.*]] = memref.view %{{.*}} to memref<3x32x36xf32, #gpu.address_space<workgroup>>
//       CHECK:   %[[RING_B:.*]] = memref.view %{{.*}} to memref<3x32x40xf32, #gpu.address_space<workgroup>>
//       CHECK:   nvgpu.device_async_copy %{{.*}}, %[[RING_A]][%{{.*}}, %{{.*}}, %{{.*}}], 4, %{{.*}} {bypassL1}
//       CHECK:   nvgpu.device_async_copy %{{.*}}, %[[RING_B]][%{{.*}}, %{{.*}}, %{{.*}}], 4, %{{.*}} {bypassL1}
//       CHECK:   scf.for
//       CHECK:     %[[X:.*]] = memref.load %[[RING_A]][
//  CHECK-NEXT:     nvvm.convert.float.to.tf32 %[[X]] {rnd = #nvvm.fp_rnd_mode<rna>}
//   CHECK-NOT:     arith.subf
//       CHECK:     memref.load %[[RING_B]][
//       CHECK:     nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
//  CHECK-COUNT-7:  nvvm.mma.sync {{.*}}<tf32>
//   CHECK-NOT:     nvvm.mma.sync
//       CHECK:     scf.yield
//   CHECK-NOT:   linalg.matmul
//       CHECK:   gpu.terminator
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @nn_tf32(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<32x64xf32, strided<[64, 1], offset: ?>>, memref<64x32xf32, strided<[64, 1], offset: ?>>)
        outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {f32_precision = "tf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 3xTF32: each element becomes a TF32 value and the TF32 of its remainder;
// per fragment pair the small cross terms go first, then big x big: three
// MMAs where TF32 has one (24 per K-tile here).
// CHECK-LABEL: func.func @nn_3xtf32(
//  CHECK-SAME:     attributes {vibegemm.f32_precision = "3xtf32"}
//       CHECK:   scf.for
//       CHECK:     %[[X:.*]] = memref.load
//  CHECK-NEXT:     %[[BIG:.*]] = nvvm.convert.float.to.tf32 %[[X]] {rnd = #nvvm.fp_rnd_mode<rna>}
//  CHECK-NEXT:     %[[BIG_F32:.*]] = arith.bitcast %[[BIG]] : i32 to f32
//  CHECK-NEXT:     %[[REST:.*]] = arith.subf %[[X]], %[[BIG_F32]] : f32
//  CHECK-NEXT:     nvvm.convert.float.to.tf32 %[[REST]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-COUNT-24:  nvvm.mma.sync {{.*}}<tf32>
//   CHECK-NOT:     nvvm.mma.sync
//       CHECK:     scf.yield
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @nn_3xtf32(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %sa = memref.subview %a[%m0, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<32x64xf32, strided<[64, 1], offset: ?>>, memref<64x32xf32, strided<[64, 1], offset: ?>>)
        outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {f32_precision = "3xtf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
