// nn.Linear (Qwen2.5-7B's k_proj, 3584 into 512, no bias) over a run-time
// batch and token count, [B, S, 3584], as torch-mlir writes a 3-D linear:
// the weight transposed and broadcast over the batch, a batch_matmul in f32
// and the cast to bf16. Written for vibegemm (issue 32).
#id3 = affine_map<(b, m, n) -> (b, m, n)>
#wT = affine_map<(b, k, n) -> (n, k)>
func.func @kv_proj(%x: tensor<?x?x3584xbf16>, %w: tensor<512x3584xbf16>) -> tensor<?x?x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x3584xbf16>
  %s = tensor.dim %x, %c1 : tensor<?x?x3584xbf16>
  %ew = tensor.empty(%b) : tensor<?x3584x512xbf16>
  %wb = linalg.generic {indexing_maps = [#wT, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
          ins(%w : tensor<512x3584xbf16>) outs(%ew : tensor<?x3584x512xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    linalg.yield %in : bf16
  } -> tensor<?x3584x512xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b, %s) : tensor<?x?x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x512xf32>) -> tensor<?x?x512xf32>
  %mm = linalg.batch_matmul ins(%x, %wb : tensor<?x?x3584xbf16>, tensor<?x3584x512xbf16>)
          outs(%f : tensor<?x?x512xf32>) -> tensor<?x?x512xf32>
  %e2 = tensor.empty(%b, %s) : tensor<?x?x512xbf16>
  %y = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%mm : tensor<?x?x512xf32>) outs(%e2 : tensor<?x?x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x?x512xbf16>
  return %y : tensor<?x?x512xbf16>
}
