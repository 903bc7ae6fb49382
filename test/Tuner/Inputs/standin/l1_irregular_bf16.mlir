// l1_irregular_bf16: A·B, M=8205 N=2949 K=5921, bf16 operands, f32 accumulation.
// KernelBench level 1: 8_Matmul_with_irregular_shapes_ (M, N, K of the anchors).
#id = affine_map<(m, n) -> (m, n)>
func.func @l1_irregular_bf16(%a: tensor<8205x5921xbf16>, %b: tensor<5921x2949xbf16>) -> tensor<8205x2949xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8205x2949xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8205x5921xbf16>, tensor<5921x2949xbf16>) outs(%acc : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %out = tensor.empty() : tensor<8205x2949xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<8205x2949xf32>) outs(%out : tensor<8205x2949xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8205x2949xbf16>
  return %y : tensor<8205x2949xbf16>
}
