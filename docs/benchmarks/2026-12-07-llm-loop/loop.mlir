// The LLM loop's dispatches; written by gen-module.py beside this file.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @decode_down_m1(%x: tensor<1x18944xbf16>, %w: tensor<3584x18944xbf16>) -> tensor<1x3584xbf16> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<1x3584xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<1x18944xbf16>, tensor<3584x18944xbf16>) outs(%f : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %o = tensor.empty() : tensor<1x3584xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<1x3584xf32>) outs(%o : tensor<1x3584xbf16>) {
  ^bb0(%v: f32, %o2: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x3584xbf16>
  return %y : tensor<1x3584xbf16>
}
func.func @decode_head_m32(%x: tensor<32x3584xbf16>, %w: tensor<152064x3584xbf16>) -> tensor<32x152064xbf16> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32x152064xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<32x152064xf32>) -> tensor<32x152064xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<32x3584xbf16>, tensor<152064x3584xbf16>) outs(%f : tensor<32x152064xf32>) -> tensor<32x152064xf32>
  %o = tensor.empty() : tensor<32x152064xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<32x152064xf32>) outs(%o : tensor<32x152064xbf16>) {
  ^bb0(%v: f32, %o2: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x152064xbf16>
  return %y : tensor<32x152064xbf16>
}
func.func @decode_up_m32(%x: tensor<32x3584xbf16>, %w: tensor<18944x3584xbf16>) -> tensor<32x18944xbf16> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32x18944xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<32x3584xbf16>, tensor<18944x3584xbf16>) outs(%f : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %o = tensor.empty() : tensor<32x18944xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<32x18944xf32>) outs(%o : tensor<32x18944xbf16>) {
  ^bb0(%v: f32, %o2: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x18944xbf16>
  return %y : tensor<32x18944xbf16>
}
func.func @prefill_up_m256(%x: tensor<256x3584xbf16>, %w: tensor<18944x3584xbf16>) -> tensor<256x18944xbf16> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<256x18944xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<256x18944xf32>) -> tensor<256x18944xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<256x3584xbf16>, tensor<18944x3584xbf16>) outs(%f : tensor<256x18944xf32>) -> tensor<256x18944xf32>
  %o = tensor.empty() : tensor<256x18944xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<256x18944xf32>) outs(%o : tensor<256x18944xbf16>) {
  ^bb0(%v: f32, %o2: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x18944xbf16>
  return %y : tensor<256x18944xbf16>
}
#row = affine_map<(m, n) -> (n)>
func.func @chain_bias_relu(%a: tensor<1024x8192xbf16>, %b: tensor<8192x8192xbf16>, %bias: tensor<8192xbf16>) -> tensor<1024x8192xbf16> {
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
func.func @ragged(%a: tensor<8205x5921xbf16>, %b: tensor<5921x2949xbf16>) -> tensor<8205x2949xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8205x2949xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8205x5921xbf16>, tensor<5921x2949xbf16>) outs(%acc : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %out = tensor.empty() : tensor<8205x2949xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<8205x2949xf32>) outs(%out : tensor<8205x2949xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8205x2949xbf16>
  return %y : tensor<8205x2949xbf16>
}
