// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="reference=true" --split-input-file | FileCheck %s

// The reference computes a bf16 softmax in f32 (a bf16 row sum saturates at
// 256): the input is widened, the softmax runs on f32, the result is rounded
// once. The two conversions are elementwise ops with kernels of their own.
// CHECK-LABEL: func.func @gemm_softmax_d0(
//       CHECK:   linalg.matmul {vibegemm.role = "root"}
//       CHECK:   %[[EPI:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<16x64xbf16>) attrs = {vibegemm.role = "epilogue0"}
//       CHECK:   %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[EPI]] : tensor<16x64xbf16>) outs(%{{.*}} : tensor<16x64xf32>) attrs = {vibegemm.role = "epilogue1"}
//       CHECK:     arith.extf
//       CHECK:   } -> tensor<16x64xf32>
//       CHECK:   %[[SM:.*]] = linalg.softmax {vibegemm.role = "softmax"} dimension(1) ins(%[[WIDE]] : tensor<16x64xf32>)
//       CHECK:   %[[NARROW:.*]] = linalg.generic {{.*}} ins(%[[SM]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16x64xbf16>) attrs = {vibegemm.role = "epilogue2"}
//       CHECK:     arith.truncf
//       CHECK:   return %[[NARROW]]
// The reference schedule gives each its own kernel.
//       CHECK: transform.named_sequence @gemm_softmax_d0
//       CHECK:   transform.structured.match attributes {vibegemm.role = "epilogue1"}
//       CHECK:   transform.structured.match attributes {vibegemm.role = "epilogue2"}
#id = affine_map<(m, n) -> (m, n)>
func.func @gemm_softmax(%a: tensor<16x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<16x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x256xbf16>, tensor<256x64xbf16>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %o = tensor.empty() : tensor<16x64xbf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<16x64xf32>) outs(%o : tensor<16x64xbf16>) {
  ^bb0(%v: f32, %out: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<16x64xbf16>
  %so = tensor.empty() : tensor<16x64xbf16>
  %s = linalg.softmax dimension(1) ins(%t : tensor<16x64xbf16>) outs(%so : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  return %s : tensor<16x64xbf16>
}

// -----

// An f32 softmax is left as it is.
// CHECK-LABEL: func.func @gemm_softmax_f32_d0(
//   CHECK-NOT:   arith.extf
//       CHECK:   linalg.softmax {vibegemm.role = "softmax"} dimension(1) ins(%{{.*}} : tensor<16x64xf32>)
//   CHECK-NOT:   arith.truncf
//       CHECK:   return
func.func @gemm_softmax_f32(%a: tensor<16x256xf32>, %b: tensor<256x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x256xf32>, tensor<256x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %so = tensor.empty() : tensor<16x64xf32>
  %s = linalg.softmax dimension(1) ins(%c : tensor<16x64xf32>) outs(%so : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %s : tensor<16x64xf32>
}
