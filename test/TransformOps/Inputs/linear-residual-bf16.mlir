// A bf16 nn.Linear whose epilogue scales the biased result and adds a
// residual of the output's shape and type (KernelBench 40 with the residual
// as an input), for the TMA residual-load tests.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @linear_residual(%a: tensor<4096x1024xbf16>, %b: tensor<2048x1024xbf16>, %bias: tensor<2048xbf16>, %res: tensor<4096x2048xbf16>) -> tensor<4096x2048xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4096x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<4096x1024xbf16>, tensor<2048x1024xbf16>) outs(%acc : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %out = tensor.empty() : tensor<4096x2048xbf16>
  %e = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %bias, %res : tensor<4096x2048xf32>, tensor<2048xbf16>, tensor<4096x2048xbf16>) outs(%out : tensor<4096x2048xbf16>) {
  ^bb0(%v: f32, %bv: bf16, %rv: bf16, %o: bf16):
    %scale = arith.constant 0.5 : f32
    %bf = arith.extf %bv : bf16 to f32
    %t = arith.addf %v, %bf : f32
    %s = arith.mulf %t, %scale : f32
    %rf = arith.extf %rv : bf16 to f32
    %y = arith.addf %s, %rf : f32
    %yr = arith.truncf %y : f32 to bf16
    linalg.yield %yr : bf16
  } -> tensor<4096x2048xbf16>
  return %e : tensor<4096x2048xbf16>
}
