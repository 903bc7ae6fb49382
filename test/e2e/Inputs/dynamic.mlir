// A dynamic N (the innermost dimension of B and of the result): refused
// before any rewrite; only leading dimensions (M) may be dynamic.
func.func @dyn(%a: tensor<64x64xf32>, %b: tensor<64x?xf32>, %c: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x?xf32>) outs(%c : tensor<64x?xf32>) -> tensor<64x?xf32>
  return %r : tensor<64x?xf32>
}
