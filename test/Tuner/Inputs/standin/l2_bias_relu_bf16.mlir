// l2_bias_relu_bf16: relu(x·W^T + b), M=1024 N=8192 K=8192, bf16 operands, f32 accumulation.
// KernelBench level 2: 76_Gemm_Add_ReLU.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @l2_bias_relu_bf16(%a: tensor<1024x8192xbf16>, %b: tensor<8192x8192xbf16>, %bias: tensor<8192xbf16>) -> tensor<1024x8192xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1024x8192xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<1024x8192xbf16>, tensor<8192x8192xbf16>) outs(%acc : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %out = tensor.empty() : tensor<1024x8192xbf16>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %bias : tensor<1024x8192xf32>, tensor<8192xbf16>) outs(%out : tensor<1024x8192xbf16>) {
  ^bb0(%v: f32, %bv: bf16, %o: bf16):
    %c_zero = arith.constant 0.0 : f32
    %c_half = arith.constant 0.5 : f32
    %c_one = arith.constant 1.0 : f32
    %c_rsqrt2 = arith.constant 0.7071067811865476 : f32
    %c_scale = arith.constant 0.5 : f32
    %c_lo = arith.constant -2.0 : f32
    %c_hi = arith.constant 2.0 : f32
    %bf = arith.extf %bv : bf16 to f32
    %t = arith.addf %v, %bf : f32
    %y = arith.maximumf %t, %c_zero : f32
    %yr = arith.truncf %y : f32 to bf16
    linalg.yield %yr : bf16
  } -> tensor<1024x8192xbf16>
  return %e : tensor<1024x8192xbf16>
}
