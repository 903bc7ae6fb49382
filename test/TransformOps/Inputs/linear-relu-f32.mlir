// Input of gemm-to-wgmma-ptx-tf32.test: relu(x * W^T + b), 2048x2048x512,
// f32, W stored [N, K] (nn.Linear), as python/bench/problems.py writes it.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @linear_relu_f32(%a: tensor<2048x512xf32>, %b: tensor<2048x512xf32>, %bias: tensor<2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2048x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<2048x512xf32>, tensor<2048x512xf32>) outs(%acc : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %out = tensor.empty() : tensor<2048x2048xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %bias : tensor<2048x2048xf32>, tensor<2048xf32>) outs(%out : tensor<2048x2048xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %c_zero = arith.constant 0.0 : f32
    %c_half = arith.constant 0.5 : f32
    %c_one = arith.constant 1.0 : f32
    %c_rsqrt2 = arith.constant 0.7071067811865476 : f32
    %c_scale = arith.constant 0.5 : f32
    %c_lo = arith.constant -2.0 : f32
    %c_hi = arith.constant 2.0 : f32
    %t = arith.addf %v, %bv : f32
    %y = arith.maximumf %t, %c_zero : f32
    linalg.yield %y : f32
  } -> tensor<2048x2048xf32>
  return %e : tensor<2048x2048xf32>
}
