// Three f32 GEMMs in two functions, two of them the same problem (one
// signature: the same shapes on the same kind of operands), for the
// concurrency and prompt tests. Written for vibegemm.
func.func @first(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

func.func @second(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                  %c: tensor<128x64xf32>) -> (tensor<64x64xf32>, tensor<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<128x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m1 = linalg.matmul ins(%c, %a : tensor<128x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %m0, %m1 : tensor<64x64xf32>, tensor<128x64xf32>
}
