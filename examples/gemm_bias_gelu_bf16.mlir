// nn.Linear + GELU(tanh) in bf16: Y = gelu(X * W^T + bias), f32 accumulation,
// W stored [out, in] as PyTorch keeps it (transposed through indexing_maps).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @linear_gelu(%x: tensor<1024x8192xbf16>, %w: tensor<8192x8192xbf16>,
                       %bias: tensor<8192xf32>) -> tensor<1024x8192xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1024x8192xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
          ins(%x, %w : tensor<1024x8192xbf16>, tensor<8192x8192xbf16>)
          outs(%acc : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %out = tensor.empty() : tensor<1024x8192xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %bias : tensor<1024x8192xf32>, tensor<8192xf32>) outs(%out : tensor<1024x8192xbf16>) {
  ^bb0(%v: f32, %b: f32, %o: bf16):
    %c0_5 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608 : f32
    %k1 = arith.constant 0.044715 : f32
    %t = arith.addf %v, %b : f32
    %t2 = arith.mulf %t, %t : f32
    %t3 = arith.mulf %t2, %t : f32
    %inner0 = arith.mulf %k1, %t3 : f32
    %inner1 = arith.addf %t, %inner0 : f32
    %inner = arith.mulf %k0, %inner1 : f32
    %th = math.tanh %inner : f32
    %one_p = arith.addf %c1, %th : f32
    %half = arith.mulf %c0_5, %t : f32
    %g = arith.mulf %half, %one_p : f32
    %r = arith.truncf %g : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1024x8192xbf16>
  return %y : tensor<1024x8192xbf16>
}
