// l1_square_bf16: A·B, M=4096 N=4096 K=4096, bf16 operands, f32 accumulation.
// KernelBench level 1: 1_Square_matrix_multiplication_.
#id = affine_map<(m, n) -> (m, n)>
func.func @l1_square_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %out = tensor.empty() : tensor<4096x4096xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<4096x4096xf32>) outs(%out : tensor<4096x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x4096xbf16>
  return %y : tensor<4096x4096xbf16>
}
