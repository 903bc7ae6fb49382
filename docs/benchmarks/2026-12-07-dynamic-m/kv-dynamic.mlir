// The k_proj of Qwen2.5-7B (hidden 3584 into 4 KV heads of 128) as
// torch-mlir writes nn.Linear without bias for a dynamic token count
// (test/e2e/Inputs/linear-dynamic-m-bf16.mlir): Y = X * W^T in bf16, X
// [M, 3584] with M = ?, W [512, 3584]. Written for vibegemm (issue 32).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @kv_proj(%x: tensor<?x3584xbf16>, %w: tensor<512x3584xbf16>) -> tensor<?x512xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x3584xbf16>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m) : tensor<?x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x512xf32>) -> tensor<?x512xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
          ins(%x, %w : tensor<?x3584xbf16>, tensor<512x3584xbf16>)
          outs(%acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %out = tensor.empty(%m) : tensor<?x512xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<?x512xf32>) outs(%out : tensor<?x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x512xbf16>
  return %y : tensor<?x512xbf16>
}
