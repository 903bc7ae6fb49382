// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule="target=sm_90a" | FileCheck %s
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule="target=sm_90" | FileCheck %s --check-prefix=SM90

// FP8 (e4m3, e5m2) on sm_90a: the wgmma kernel, both operands K-major, with
// the bf16 path's tiles (persistent 128x256 with TMA stores where they fill
// the chip, 64x128 for decode-sized M). Without wgmma (sm_90), and for a B
// stored [K, N], FP8 takes the SIMT schedule, which widens each element.

// CHECK-LABEL: transform.named_sequence @scaled_linear_d0
//       CHECK:   transform.tune.knob<"block_m"> = 128
//       CHECK:   transform.tune.knob<"block_n"> = 256
//       CHECK:   transform.vibegemm.gemm_to_wgmma %{{.*}} {consumers = 2 : i64, persistent_blocks = 132 : i64, tma_store} :
// SM90-LABEL: transform.named_sequence @scaled_linear_d0
//   SM90-NOT:   gemm_to_wgmma
//   SM90-NOT:   gemm_to_mma_sync
//       SM90:   transform.yield
func.func @scaled_linear(%x: tensor<2048x1024xf8E4M3FN>, %w: tensor<4096x1024xf8E4M3FN>,
                         %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<2048x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<2048x1024xf8E4M3FN>, tensor<4096x1024xf8E4M3FN>) outs(%f : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %o = tensor.empty() : tensor<2048x4096xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %sx, %sw : tensor<2048x4096xf32>, tensor<f32>, tensor<f32>) outs(%o : tensor<2048x4096xbf16>) {
  ^bb0(%v: f32, %a: f32, %b: f32, %out: bf16):
    %s = arith.mulf %a, %b : f32
    %r = arith.mulf %v, %s : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2048x4096xbf16>
  return %y : tensor<2048x4096xbf16>
}

// -----

// Decode-sized M in e5m2: 64x128 tiles with one consumer.
// CHECK-LABEL: transform.named_sequence @decode_e5m2_d0
//       CHECK:   transform.tune.knob<"block_m"> = 64
//       CHECK:   transform.tune.knob<"block_n"> = 128
//       CHECK:   transform.vibegemm.gemm_to_wgmma %{{.*}} {stages = 6 : i64} :
func.func @decode_e5m2(%x: tensor<16x4096xf8E5M2>, %w: tensor<11008x4096xf8E5M2>) -> tensor<16x11008xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x11008xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<16x4096xf8E5M2>, tensor<11008x4096xf8E5M2>) outs(%f : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  return %c : tensor<16x11008xf32>
}

// -----

// B stored [K, N]: FP8 wgmma cannot read it, so the SIMT schedule.
// CHECK-LABEL: transform.named_sequence @b_kn_d0
//   CHECK-NOT:   gemm_to_wgmma
//       CHECK:   transform.yield
func.func @b_kn(%x: tensor<1024x1024xf8E4M3FN>, %w: tensor<1024x1024xf8E4M3FN>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c = linalg.matmul ins(%x, %w : tensor<1024x1024xf8E4M3FN>, tensor<1024x1024xf8E4M3FN>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}
