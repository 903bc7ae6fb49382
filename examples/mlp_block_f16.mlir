// Transformer MLP block in f16: Y = X + W2 * relu(W1 * X + b1) + b2 (row-major activations,
// weights [in, out]); two GEMM dispatches with an f16 intermediate between them.
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @mlp(%x: tensor<512x1024xf16>, %w1: tensor<1024x4096xf16>, %b1: tensor<4096xf32>,
               %w2: tensor<4096x1024xf16>, %b2: tensor<1024xf32>) -> tensor<512x1024xf16> {
  %zero = arith.constant 0.0 : f32
  %i1 = tensor.empty() : tensor<512x4096xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%i1 : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<512x1024xf16>, tensor<1024x4096xf16>)
                      outs(%a1 : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %h0 = tensor.empty() : tensor<512x4096xf16>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%m1, %b1 : tensor<512x4096xf32>, tensor<4096xf32>) outs(%h0 : tensor<512x4096xf16>) {
  ^bb0(%v: f32, %b: f32, %o: f16):
    %c0 = arith.constant 0.0 : f32
    %t = arith.addf %v, %b : f32
    %r = arith.maximumf %t, %c0 : f32
    %f = arith.truncf %r : f32 to f16
    linalg.yield %f : f16
  } -> tensor<512x4096xf16>
  %i2 = tensor.empty() : tensor<512x1024xf32>
  %a2 = linalg.fill ins(%zero : f32) outs(%i2 : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<512x4096xf16>, tensor<4096x1024xf16>)
                      outs(%a2 : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %y0 = tensor.empty() : tensor<512x1024xf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%m2, %b2, %x : tensor<512x1024xf32>, tensor<1024xf32>, tensor<512x1024xf16>)
         outs(%y0 : tensor<512x1024xf16>) {
  ^bb0(%v: f32, %b: f32, %res: f16, %o: f16):
    %t = arith.addf %v, %b : f32
    %re = arith.extf %res : f16 to f32
    %s = arith.addf %t, %re : f32
    %f = arith.truncf %s : f32 to f16
    linalg.yield %f : f16
  } -> tensor<512x1024xf16>
  return %y : tensor<512x1024xf16>
}
