// The k_proj of Qwen2.5-7B at 32 tokens (hidden 3584 into 4 KV heads of
// 128), as torch-mlir writes nn.Linear without bias: Y = X * W^T in bf16
// with f32 accumulation and a bf16 result. Written for vibegemm from the
// workload of docs/benchmarks/2026-12-07-tuning-at-scale.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @kv_proj(%x: tensor<32x3584xbf16>, %w: tensor<512x3584xbf16>) -> tensor<32x512xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x512xf32>) -> tensor<32x512xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
          ins(%x, %w : tensor<32x3584xbf16>, tensor<512x3584xbf16>)
          outs(%acc : tensor<32x512xf32>) -> tensor<32x512xf32>
  %out = tensor.empty() : tensor<32x512xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<32x512xf32>) outs(%out : tensor<32x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x512xbf16>
  return %y : tensor<32x512xbf16>
}
