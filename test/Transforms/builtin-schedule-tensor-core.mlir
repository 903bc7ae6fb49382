// The built-in scheduler's choice per shape class for bf16 GEMMs: the
// tensor-core schedule's tiles, warps, K step and stages, split-K, and where
// it keeps SIMT.
// (Attributes at their defaults, block_k = 32 and stages = 3, are not printed.)
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule | FileCheck %s
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule="target=sm_90a" | FileCheck %s --check-prefix=SM90A

// On sm_90a the large square takes TMA + wgmma (128x256 tiles, two
// consumers, 4 stages) in the persistent kernel (one block per SM) with
// TMA stores, and so does the misaligned irregular shape, its operands
// first copied into buffers with aligned rows, but with one block per tile
// (its rows are no multiple of 16 bytes: no TMA stores). Both fill the chip
// many times over, so their blocks run in groups of 16 tile rows. Huge K splits K
// over wgmma kernels (the widest tile whose split fills the chip); decode
// takes a 64x128 wgmma tile (builtin-schedule-decode-wgmma.mlir) and the
// matvec keeps its sm_90 schedule.
// SM90A-LABEL: transform.named_sequence @c0_bf16_d0(
//       SM90A: %[[LAUNCH:.*]] = transform.gpu.map_forall_to_blocks
//       SM90A: transform.vibegemm.group_blocks %[[LAUNCH]] {group = 16 : i64} : !transform.any_op
//  SM90A-NEXT: transform.vibegemm.gemm_to_wgmma %{{.*}} {consumers = 2 : i64, persistent_blocks = 132 : i64, tma_store} :
// SM90A-LABEL: transform.named_sequence @c1_bf16_d0(
//       SM90A: transform.vibegemm.gemm_to_wgmma %{{.*}} {stages = 6 : i64} :
// SM90A-LABEL: transform.named_sequence @c2_bf16_d0(
//       SM90A: transform.tune.knob<"block_m"> = 64
//       SM90A: transform.tune.knob<"block_n"> = 128
//       SM90A: transform.structured.split_reduction %{{.*}} {split_factor = 64 : i64}
//   SM90A-NOT: group_blocks
//       SM90A: transform.vibegemm.gemm_to_wgmma %{{.*}} {stages = 6 : i64} :
// SM90A-LABEL: transform.named_sequence @c3_bf16_d0(
//       SM90A: transform.vibegemm.group_blocks %{{.*}} {group = 16 : i64}
//  SM90A-NEXT: transform.vibegemm.align_operand_rows %[[IRR:[0-9]+]] {row_bytes = 128 : i64} : !transform.any_op
//  SM90A-NEXT: transform.vibegemm.gemm_to_wgmma %[[IRR]] {consumers = 2 : i64} :
// SM90A-LABEL: transform.named_sequence @c4_bf16_d0(
//   SM90A-NOT: gemm_to_wgmma
// SM90A-LABEL: transform.named_sequence @c5_bf16_d0(
//       SM90A: transform.tune.knob<"block_m"> = 128
//       SM90A: transform.tune.knob<"block_n"> = 256
//       SM90A: transform.structured.split_reduction %{{.*}} {split_factor = 64 : i64}
//       SM90A: transform.vibegemm.gemm_to_wgmma %{{.*}} {consumers = 2 : i64} :
// Tiny K over a large output (16384^2 x 64) is bound by its stores: wgmma
// tiles, no grouping; its f32 output keeps one block per tile (TMA stores
// of f32 boxes race as a variant where measured).
// SM90A-LABEL: transform.named_sequence @c6_bf16_d0(
//   SM90A-NOT: group_blocks
//       SM90A: transform.vibegemm.gemm_to_wgmma %{{.*}} {consumers = 2 : i64} :

// Large square: 128x256 tiles, eight 64x64 warp tiles, K steps of 64, three stages.
// CHECK-LABEL: transform.named_sequence @c0_bf16_d0(
// CHECK: transform.tune.knob<"block_m"> = 128
// CHECK: transform.tune.knob<"block_n"> = 256
// CHECK: transform.vibegemm.gemm_to_mma_sync %{{.*}} {block_k = 64 : i64, warps = array<i64: 2, 4>}
#id = affine_map<(m, n) -> (m, n)>
func.func @c0_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %out = tensor.empty() : tensor<4096x4096xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<4096x4096xf32>) outs(%out : tensor<4096x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x4096xbf16>
  return %y : tensor<4096x4096xbf16>
}

// -----

// Decode (M = 16): 16-row tiles, four warps side by side.
// CHECK-LABEL: transform.named_sequence @c1_bf16_d0(
// CHECK: transform.tune.knob<"block_m"> = 16
// CHECK: transform.tune.knob<"block_n"> = 64
// CHECK: transform.vibegemm.gemm_to_mma_sync %{{.*}} {block_k = 64 : i64, stages = 4 : i64, warps = array<i64: 1, 4>}
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @c1_bf16(%a: tensor<16x4096xbf16>, %b: tensor<11008x4096xbf16>) -> tensor<16x11008xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x11008xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<16x4096xbf16>, tensor<11008x4096xbf16>) outs(%acc : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  %out = tensor.empty() : tensor<16x11008xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<16x11008xf32>) outs(%out : tensor<16x11008xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<16x11008xbf16>
  return %y : tensor<16x11008xbf16>
}

// -----

// Huge K, four output tiles: split-K 64 ways, then a combining kernel with
// the truncation fused, one output per thread (16x16 tiles, 16x16 threads).
// CHECK-LABEL: transform.named_sequence @c2_bf16_d0(
// CHECK: transform.structured.split_reduction %{{.*}} {split_factor = 64 : i64}
// CHECK: transform.structured.tile_using_forall %{{.*}} tile_sizes [16, 16](mapping = [#gpu.block<y>, #gpu.block<x>])
// CHECK: transform.structured.tile_using_forall %{{.*}} num_threads [16, 16](mapping = [#gpu.thread<y>, #gpu.thread<x>])
// CHECK: transform.vibegemm.gemm_to_mma_sync
// CHECK: transform.gpu.map_nested_forall_to_threads %{{.*}} block_dims = [16, 16, 1]
#id = affine_map<(m, n) -> (m, n)>
func.func @c2_bf16(%a: tensor<128x65536xbf16>, %b: tensor<65536x128xbf16>) -> tensor<128x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<128x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<128x128xf32>) -> tensor<128x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x65536xbf16>, tensor<65536x128xbf16>) outs(%acc : tensor<128x128xf32>) -> tensor<128x128xf32>
  %out = tensor.empty() : tensor<128x128xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<128x128xf32>) outs(%out : tensor<128x128xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Odd K and N: rows are not 16-byte aligned; 128x128 tiles with eight warps keep the register-loaded K-tile from spilling.
// CHECK-LABEL: transform.named_sequence @c3_bf16_d0(
// CHECK: transform.tune.knob<"block_m"> = 128
// CHECK: transform.tune.knob<"block_n"> = 128
// CHECK: transform.vibegemm.gemm_to_mma_sync %{{.*}} {stages = 4 : i64, warps = array<i64: 2, 4>}
#id = affine_map<(m, n) -> (m, n)>
func.func @c3_bf16(%a: tensor<8205x5921xbf16>, %b: tensor<5921x2949xbf16>) -> tensor<8205x2949xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8205x2949xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8205x5921xbf16>, tensor<5921x2949xbf16>) outs(%acc : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %out = tensor.empty() : tensor<8205x2949xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<8205x2949xf32>) outs(%out : tensor<8205x2949xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8205x2949xbf16>
  return %y : tensor<8205x2949xbf16>
}

// -----

// Matrix-vector (N = 1): no tensor cores; two output rows per block
// (sharing the vector's loads), 1024 threads splitting K = 131072 (128
// blocks: too few for the 512-thread cap).
// CHECK-LABEL: transform.named_sequence @c4_bf16_d0(
// CHECK-NOT: gemm_to_mma_sync
// CHECK: transform.tune.knob<"block_m"> = 2 : i64 from options = [1, 2]
// CHECK: transform.tune.knob<"block_n"> = 1 : i64 from options = [1, 2]
// CHECK-NOT: map_nested_forall_to_threads
// CHECK: transform.vibegemm.gemm_to_block_reduce %{{.*}} {threads = 1024 : i64}
#id = affine_map<(m, n) -> (m, n)>
func.func @c4_bf16(%a: tensor<256x131072xbf16>, %b: tensor<131072x1xbf16>) -> tensor<256x1xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x1xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256x1xf32>) -> tensor<256x1xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x131072xbf16>, tensor<131072x1xbf16>) outs(%acc : tensor<256x1xf32>) -> tensor<256x1xf32>
  %out = tensor.empty() : tensor<256x1xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<256x1xf32>) outs(%out : tensor<256x1xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x1xbf16>
  return %y : tensor<256x1xbf16>
}

// -----

// Huge K over a 256x256 output: two 128x256 tiles (eight 64x64 warp tiles,
// K steps of 64, three stages), split 64 ways for about one block per SM;
// measured 1.56x faster on the H200 than 64x64 tiles split 16 ways.
// CHECK-LABEL: transform.named_sequence @c5_bf16_d0(
// CHECK: transform.tune.knob<"block_m"> = 128
// CHECK: transform.tune.knob<"block_n"> = 256
// CHECK: transform.structured.split_reduction %{{.*}} {split_factor = 64 : i64}
// The combining kernel sums over the split dimension, one output per thread.
// CHECK: transform.structured.tile_using_forall %{{.*}} tile_sizes [0, 16, 16](mapping = [#gpu.block<y>, #gpu.block<x>])
// CHECK: transform.vibegemm.gemm_to_mma_sync %{{.*}} {block_k = 64 : i64, warps = array<i64: 2, 4>}
func.func @c5_bf16(%a: tensor<256x524288xbf16>, %b: tensor<524288x256xbf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x524288xbf16>, tensor<524288x256xbf16>) outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %mm : tensor<256x256xf32>
}

// -----

func.func @c6_bf16(%a: tensor<16384x64xbf16>, %b: tensor<64x16384xbf16>) -> tensor<16384x16384xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16384x16384xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<16384x16384xf32>) -> tensor<16384x16384xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16384x64xbf16>, tensor<64x16384xbf16>) outs(%acc : tensor<16384x16384xf32>) -> tensor<16384x16384xf32>
  return %mm : tensor<16384x16384xf32>
}
