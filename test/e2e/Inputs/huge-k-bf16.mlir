// Huge K over a small output (the suite's a_huge_k, 128x128x65536, bf16
// operands, f32 result): split-K, so its plan launches the partial GEMM
// and then the combining kernel. Written for vibegemm's tests.
func.func @huge_k(%a: tensor<128x65536xbf16>, %b: tensor<65536x128xbf16>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<128x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<128x128xf32>) -> tensor<128x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x65536xbf16>, tensor<65536x128xbf16>) outs(%acc : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %mm : tensor<128x128xf32>
}
