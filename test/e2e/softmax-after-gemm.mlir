// REQUIRES: libdevice
// RUN: rm -rf %t && vibegemm-opt %s --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/gemm_softmax_d0.plan.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/gemm_softmax_d0.ptx -o %t.cubin %}

// GEMM + GELU(erf) + row softmax in one dispatch.
// CHECK-LABEL: func.func @gemm_softmax_d0(
//       CHECK:   gpu.launch_func
//       CHECK: gpu.binary @gemm_softmax_d0_kernels
// The GEMM's operands are drawn small for verification (K = 256: 0.125).
// PLAN: "name": "arg0"
// PLAN: "verify_scale": 0.125
// PLAN: "name": "arg1"
// PLAN: "verify_scale": 0.125
#id = affine_map<(m, n) -> (m, n)>
func.func @gemm_softmax(%a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x512xf32>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<128x512xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678 : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<128x512xf32>
  %out = tensor.empty() : tensor<128x512xf32>
  %sm = linalg.softmax dimension(1) ins(%g : tensor<128x512xf32>) outs(%out : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %sm : tensor<128x512xf32>
}
