// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches="f32-precision=tf32" --vibegemm-builtin-schedule="target=sm_90a" | FileCheck %s
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches="f32-precision=tf32" --vibegemm-builtin-schedule="target=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches="f32-precision=3xtf32" --vibegemm-builtin-schedule="target=sm_90a" | FileCheck %s --check-prefix=THREE

// TF32 on sm_90a, where the user allowed it: the wgmma kernel with K steps
// of 32 f32 for K-major operands (A [M, K], B [N, K]) whose 128x256 tiles
// fill the chip; other layouts, smaller problems, sm_90 and 3xTF32 stay
// on mma.sync.

// CHECK-LABEL: transform.named_sequence @linear_d0
//       CHECK:   transform.tune.knob<"block_m"> = 128
//       CHECK:   transform.tune.knob<"block_n"> = 256
//       CHECK:   transform.vibegemm.group_blocks %{{.*}} {group = 16 : i64}
//       CHECK:   transform.vibegemm.gemm_to_wgmma %{{.*}} {consumers = 2 : i64, f32_precision = "tf32"} :
// SM90-LABEL: transform.named_sequence @linear_d0
//   SM90-NOT:   gemm_to_wgmma
//       SM90:   transform.vibegemm.gemm_to_mma_sync %{{.*}} {f32_precision = "tf32"} :
// THREE-LABEL: transform.named_sequence @linear_d0
//   THREE-NOT:   gemm_to_wgmma
//       THREE:   transform.vibegemm.gemm_to_mma_sync %{{.*}} {f32_precision = "3xtf32"} :
func.func @linear(%x: tensor<1024x8192xf32>, %w: tensor<8192x8192xf32>, %bias: tensor<8192xf32>) -> tensor<1024x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x8192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<1024x8192xf32>, tensor<8192x8192xf32>) outs(%f : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<1024x8192xf32>, tensor<8192xf32>) outs(%e : tensor<1024x8192xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1024x8192xf32>
  return %y : tensor<1024x8192xf32>
}

// -----

// B stored [K, N]: tf32 wgmma cannot read it (MN-major f32 operands are
// not legal), so mma.sync.
// CHECK-LABEL: transform.named_sequence @nn_d0
//   CHECK-NOT:   gemm_to_wgmma
//       CHECK:   transform.vibegemm.gemm_to_mma_sync %{{.*}} {f32_precision = "tf32"} :
func.func @nn(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%f : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}

// -----

// 16 tiles of 128x256: not measured on wgmma TF32 (128x128 with one
// consumer ran 2x slower than 128x256 with two), so mma.sync.
// CHECK-LABEL: transform.named_sequence @small_linear_d0
//   CHECK-NOT:   gemm_to_wgmma
//       CHECK:   transform.vibegemm.gemm_to_mma_sync %{{.*}} {f32_precision = "tf32"} :
func.func @small_linear(%x: tensor<512x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<512x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %c : tensor<512x1024xf32>
}
