// The built-in scheduler's choices for decode-shaped nn.Linear GEMMs (B
// stored [N, K]) that a stand-in LLM's measured scripts changed
// (docs/benchmarks/2026-12-07-tuning-at-scale): 32-row mma.sync tiles take
// K steps of 64, 32x128 tiles with four warps along N where N gives four
// waves of them, and block-reduce GEMMs over more than two blocks an SM
// at most 512 threads.
// RUN: vibegemm-opt %s --split-input-file --vibegemm-form-dispatches --vibegemm-builtin-schedule | FileCheck %s

// Qwen2.5-7B's head at 32 tokens: 1188 tiles of 32x128, four waves and more.
// CHECK-LABEL: transform.named_sequence @head_m32_d0(
// CHECK: transform.tune.knob<"block_m"> = 32
// CHECK: transform.tune.knob<"block_n"> = 128
// CHECK-NOT: split_reduction
// CHECK: transform.vibegemm.gemm_to_mma_sync %{{.*}} {block_k = 64 : i64, stages = 4 : i64, warps = array<i64: 1, 4>}
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @head_m32(%x: tensor<32x3584xbf16>, %w: tensor<152064x3584xbf16>) -> tensor<32x152064xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32x152064xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<32x152064xf32>) -> tensor<32x152064xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<32x3584xbf16>, tensor<152064x3584xbf16>) outs(%f : tensor<32x152064xf32>) -> tensor<32x152064xf32>
  return %mm : tensor<32x152064xf32>
}

// -----

// Its up projection: 148 tiles of 32x128 are not four waves, so 32x64 over
// 2x2 warps, with K steps of 64.
// CHECK-LABEL: transform.named_sequence @up_m32_d0(
// CHECK: transform.tune.knob<"block_m"> = 32
// CHECK: transform.tune.knob<"block_n"> = 64
// CHECK: transform.vibegemm.gemm_to_mma_sync %{{.*}} {block_k = 64 : i64, stages = 4 : i64}
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @up_m32(%x: tensor<32x3584xbf16>, %w: tensor<18944x3584xbf16>) -> tensor<32x18944xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32x18944xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<32x3584xbf16>, tensor<18944x3584xbf16>) outs(%f : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  return %mm : tensor<32x18944xf32>
}

// -----

// The down projection at one token: K = 18944 would ask for 1024 threads;
// over 1792 blocks of two rows the block takes 512.
// CHECK-LABEL: transform.named_sequence @down_m1_d0(
// CHECK: transform.tune.knob<"block_n"> = 2
// CHECK: transform.vibegemm.gemm_to_block_reduce %{{.*}} {threads = 512 : i64}
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @down_m1(%x: tensor<1x18944xbf16>, %w: tensor<3584x18944xbf16>) -> tensor<1x3584xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<1x3584xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<1x18944xbf16>, tensor<3584x18944xbf16>) outs(%f : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  return %mm : tensor<1x3584xf32>
}
