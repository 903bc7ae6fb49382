// nn.Linear + ReLU in bf16, the shapes of examples/gemm_bias_gelu_bf16.mlir
// with an epilogue of no transcendental op: Y = relu(X * W^T + bias).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @linear_relu(%x: tensor<1024x8192xbf16>, %w: tensor<8192x8192xbf16>,
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
    %t = arith.addf %v, %b : f32
    %r = arith.maximumf %t, %zero : f32
    %h = arith.truncf %r : f32 to bf16
    linalg.yield %h : bf16
  } -> tensor<1024x8192xbf16>
  return %y : tensor<1024x8192xbf16>
}
