// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --split-input-file | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --vibegemm-apply-schedules --split-input-file | FileCheck %s --check-prefix=APPLY
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="reference=true" --split-input-file | FileCheck %s --check-prefix=REF
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="reference=true" --vibegemm-apply-schedules --split-input-file | FileCheck %s --check-prefix=REFAPPLY

// A batched GEMM with a softmax after it (attention scores): in bf16 the
// tensor-core schedule, the softmax a kernel of its own with one row per
// block over a grid of rows by batches.
// CHECK-LABEL: transform.named_sequence @scores_d0(
//       CHECK:   transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 1](mapping = [#gpu.block<y>, #gpu.block<x>])
//       CHECK:   transform.vibegemm.gemm_to_mma_sync
//       CHECK:   transform.vibegemm.softmax_to_block_reduce %{{.*}} {threads = 64 : i64}
// APPLY-LABEL: func.func @scores_d0(
//       APPLY:   gpu.launch
//       APPLY:   nvvm.mma.sync
//       APPLY:   gpu.launch
//       APPLY:     gpu.shuffle  xor
//   APPLY-NOT:   linalg.softmax
//       APPLY:   return
func.func @scores(%q: tensor<8x256x64xbf16>, %k: tensor<8x64x512xbf16>) -> tensor<8x256x512xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256x512xf32>) -> tensor<8x256x512xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<8x256x64xbf16>, tensor<8x64x512xbf16>) outs(%f : tensor<8x256x512xf32>) -> tensor<8x256x512xf32>
  %o = tensor.empty() : tensor<8x256x512xbf16>
  %t = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<8x256x512xf32>) outs(%o : tensor<8x256x512xbf16>) {
  ^bb0(%v: f32, %out: bf16):
    %c = arith.constant 0.125 : f32
    %x = arith.mulf %v, %c : f32
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x256x512xbf16>
  %so = tensor.empty() : tensor<8x256x512xbf16>
  %sm = linalg.softmax dimension(2) ins(%t : tensor<8x256x512xbf16>) outs(%so : tensor<8x256x512xbf16>) -> tensor<8x256x512xbf16>
  return %sm : tensor<8x256x512xbf16>
}

// -----

// In f32 the direct schedule, with the same softmax kernel. The reference
// decomposes the softmax instead, 32 rows per block, mapped over rows and
// batches.
// CHECK-LABEL: transform.named_sequence @scores_f32_d0(
//       CHECK:   transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 1](mapping = [#gpu.block<y>, #gpu.block<x>])
//   CHECK-NOT:   transform.structured.decompose_interface
//       CHECK:   transform.vibegemm.softmax_to_block_reduce %{{.*}} {threads = 64 : i64}
// APPLY-LABEL: func.func @scores_f32_d0(
//       APPLY:   gpu.launch
//       APPLY:   gpu.launch
//       APPLY:     gpu.shuffle  xor
//   APPLY-NOT:   linalg.softmax
//       APPLY:   return
// REF-LABEL: transform.named_sequence @scores_f32_d0(
//       REF:   transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 32](mapping = [#gpu.block<y>, #gpu.block<x>])
//       REF:   transform.structured.decompose_interface
//       REF:   transform.structured.match ops{["scf.forall"]} attributes {mapping = [#gpu.block<y>, #gpu.block<x>]}
// REFAPPLY-LABEL: func.func @scores_f32_d0(
//       REFAPPLY:   gpu.launch
//       REFAPPLY:   gpu.launch
//   REFAPPLY-NOT:   linalg.softmax
//       REFAPPLY:   return
func.func @scores_f32(%q: tensor<8x256x64xf32>, %k: tensor<8x64x512xf32>) -> tensor<8x256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256x512xf32>) -> tensor<8x256x512xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<8x256x64xf32>, tensor<8x64x512xf32>) outs(%f : tensor<8x256x512xf32>) -> tensor<8x256x512xf32>
  %o = tensor.empty() : tensor<8x256x512xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<8x256x512xf32>) outs(%o : tensor<8x256x512xf32>) {
  ^bb0(%v: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %x = arith.mulf %v, %c : f32
    %r = arith.addf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x256x512xf32>
  %so = tensor.empty() : tensor<8x256x512xf32>
  %sm = linalg.softmax dimension(2) ins(%t : tensor<8x256x512xf32>) outs(%so : tensor<8x256x512xf32>) -> tensor<8x256x512xf32>
  return %sm : tensor<8x256x512xf32>
}

// -----

// 77 rows: the reference's softmax blocks take a row count that divides M
// (here one), so the decomposed softmax's row buffers keep a static size.
// CHECK-LABEL: transform.named_sequence @b3x77x1001x64_scores_f32_d0(
//       CHECK:   transform.vibegemm.softmax_to_block_reduce
// APPLY-LABEL: func.func @b3x77x1001x64_scores_f32_d0(
//       APPLY:   gpu.launch
//       APPLY:   gpu.launch
//       APPLY:   return
// REF-LABEL: transform.named_sequence @b3x77x1001x64_scores_f32_d0(
//       REF:   transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 1](mapping = [#gpu.block<y>, #gpu.block<x>])
// REFAPPLY-LABEL: func.func @b3x77x1001x64_scores_f32_d0(
//       REFAPPLY:   gpu.launch
//       REFAPPLY:   gpu.launch
//   REFAPPLY-NOT:   memref.alloc(%
//       REFAPPLY:   return
func.func @b3x77x1001x64_scores_f32(%q: tensor<3x77x64xf32>, %kt: tensor<3x64x1001xf32>) -> tensor<3x77x1001xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x77x1001xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x77x1001xf32>) -> tensor<3x77x1001xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<3x77x64xf32>, tensor<3x64x1001xf32>) outs(%f : tensor<3x77x1001xf32>) -> tensor<3x77x1001xf32>
  %o = tensor.empty() : tensor<3x77x1001xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<3x77x1001xf32>) outs(%o : tensor<3x77x1001xf32>) {
  ^bb0(%v: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %v, %c : f32
    %r = arith.addf %y, %zero : f32
    linalg.yield %r : f32
  } -> tensor<3x77x1001xf32>
  %so = tensor.empty() : tensor<3x77x1001xf32>
  %sm = linalg.softmax dimension(2) ins(%x : tensor<3x77x1001xf32>) outs(%so : tensor<3x77x1001xf32>) -> tensor<3x77x1001xf32>
  return %sm : tensor<3x77x1001xf32>
}
