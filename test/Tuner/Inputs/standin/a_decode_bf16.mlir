// a_decode_bf16: GEMM, M=16 N=11008 K=4096, bf16 operands, f32 accumulation.
// KernelBench level 0: anchor: skinny M (decode), nn.Linear weight.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @a_decode_bf16(%a: tensor<16x4096xbf16>, %b: tensor<11008x4096xbf16>) -> tensor<16x11008xbf16> {
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
