// Attention scores over a run-time query count: softmax(Q * K^T) along the
// keys, Q [M, 64], K [128, 64], as torch-mlir writes a softmax after a
// linear without bias. Written for vibegemm (issue 32).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @scores(%q: tensor<?x64xf32>, %k: tensor<128x64xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %q, %c0 : tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  %s = linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%q, %k : tensor<?x64xf32>, tensor<128x64xf32>) outs(%f : tensor<?x128xf32>) -> tensor<?x128xf32>
  %e2 = tensor.empty(%m) : tensor<?x128xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<?x128xf32>) outs(%e2 : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %p : tensor<?x128xf32>
}
