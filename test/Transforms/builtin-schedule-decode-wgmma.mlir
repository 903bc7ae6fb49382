// The built-in scheduler's decode rule on sm_90a: M of at most 16 with
// K-major operands (nn.Linear), K >= 1024, and half a wave to a wave of
// 64x128 tiles takes the wgmma kernel under a 64x128 tile (B streamed by
// TMA; measured 31.2 us against mma.sync's 36.2 on 16x11008x4096,
// docs/benchmarks/h200-2026-12-04-decode-wgmma). Outside that class decode
// keeps its mma.sync 16-row tiles.
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule="target=sm_90a" | FileCheck %s
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule="target=sm_90" | FileCheck %s --check-prefix=SM90

// 16x11008x4096, W stored [N, K]: 86 tiles of 64x128.
// CHECK-LABEL: transform.named_sequence @decode_bf16_d0(
//       CHECK: transform.tune.knob<"block_m"> = 64
//       CHECK: transform.tune.knob<"block_n"> = 128
//   CHECK-NOT: group_blocks
//   CHECK-NOT: align_operand_rows
//       CHECK: transform.vibegemm.gemm_to_wgmma %{{.*}} {stages = 6 : i64} :
// sm_90 has no wgmma: the mma.sync decode tile.
// SM90-LABEL: transform.named_sequence @decode_bf16_d0(
//       SM90: transform.tune.knob<"block_m"> = 16
//       SM90: transform.vibegemm.gemm_to_mma_sync
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @decode_bf16(%a: tensor<16x4096xbf16>, %b: tensor<11008x4096xbf16>) -> tensor<16x11008xbf16> {
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

// M = 7: still one wgmma tile row (rows past 7 read as TMA's zero fill).
// CHECK-LABEL: transform.named_sequence @ragged_rows_bf16_d0(
//       CHECK: transform.tune.knob<"block_n"> = 128
//       CHECK: transform.vibegemm.gemm_to_wgmma %{{.*}} {stages = 6 : i64} :
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @ragged_rows_bf16(%a: tensor<7x2048xbf16>, %b: tensor<9000x2048xbf16>) -> tensor<7x9000xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<7x9000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<7x9000xf32>) -> tensor<7x9000xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<7x2048xbf16>, tensor<9000x2048xbf16>) outs(%acc : tensor<7x9000xf32>) -> tensor<7x9000xf32>
  %out = tensor.empty() : tensor<7x9000xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<7x9000xf32>) outs(%out : tensor<7x9000xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<7x9000xbf16>
  return %y : tensor<7x9000xbf16>
}

// -----

// B stored [K, N] was not measured on this tile: mma.sync.
// CHECK-LABEL: transform.named_sequence @b_n_major_bf16_d0(
//       CHECK: transform.tune.knob<"block_m"> = 16
//       CHECK: transform.vibegemm.gemm_to_mma_sync
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @b_n_major_bf16(%a: tensor<16x4096xbf16>, %b: tensor<4096x11008xbf16>) -> tensor<16x11008xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x11008xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<16x4096xbf16>, tensor<4096x11008xbf16>) outs(%acc : tensor<16x11008xf32>) -> tensor<16x11008xf32>
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

// 32 tiles of 64x128 would leave most SMs idle: mma.sync.
// CHECK-LABEL: transform.named_sequence @narrow_bf16_d0(
//       CHECK: transform.tune.knob<"block_m"> = 16
//       CHECK: transform.vibegemm.gemm_to_mma_sync
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @narrow_bf16(%a: tensor<16x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<16x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<16x4096xbf16>, tensor<4096x4096xbf16>) outs(%acc : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %out = tensor.empty() : tensor<16x4096xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<16x4096xf32>) outs(%out : tensor<16x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<16x4096xbf16>
  return %y : tensor<16x4096xbf16>
}

// -----

// M = 32 is past one 16-row decode tile: mma.sync with 32-row tiles.
// CHECK-LABEL: transform.named_sequence @m32_bf16_d0(
//       CHECK: transform.tune.knob<"block_m"> = 32
//       CHECK: transform.vibegemm.gemm_to_mma_sync
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @m32_bf16(%a: tensor<32x4096xbf16>, %b: tensor<11008x4096xbf16>) -> tensor<32x11008xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x11008xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x11008xf32>) -> tensor<32x11008xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<32x4096xbf16>, tensor<11008x4096xbf16>) outs(%acc : tensor<32x11008xf32>) -> tensor<32x11008xf32>
  %out = tensor.empty() : tensor<32x11008xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<32x11008xf32>) outs(%out : tensor<32x11008xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x11008xbf16>
  return %y : tensor<32x11008xbf16>
}
