// The MLP up projection of Llama-2-7B (hidden 4096 into 11008) as torch-mlir
// writes nn.Linear without bias for a dynamic token count: Y = X * W^T in
// bf16 with f32 accumulation, X [M, 4096] with M = ?, W [11008, 4096].
// Written for vibegemm (issue 32); the same module as
// docs/benchmarks/2026-12-07-dynamic-m/up-dynamic.mlir.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @up(%x: tensor<?x4096xbf16>, %w: tensor<11008x4096xbf16>) -> tensor<?x11008xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xbf16>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m) : tensor<?x11008xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
          ins(%x, %w : tensor<?x4096xbf16>, tensor<11008x4096xbf16>)
          outs(%acc : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %out = tensor.empty(%m) : tensor<?x11008xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<?x11008xf32>) outs(%out : tensor<?x11008xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x11008xbf16>
  return %y : tensor<?x11008xbf16>
}
