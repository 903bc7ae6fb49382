// One 16x8x16 f16 tile: the shape of one mma.sync.
func.func @mma(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>) -> tensor<16x8xf16> {
  %zero = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<16x8xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%init : tensor<16x8xf16>) -> tensor<16x8xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf16>, tensor<16x8xf16>) outs(%fill : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %r : tensor<16x8xf16>
}
