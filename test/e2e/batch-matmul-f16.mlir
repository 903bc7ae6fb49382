// RUN: rm -rf %t && vibegemm-opt %s --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/bmm_d0.ptx -o %t.cubin %}

// batch_matmul, f16 operands with f32 accumulation, one block per batch slice in z.
// STDERR: vibegemm: no LLM endpoint configured; the built-in scheduler ran
// CHECK-LABEL: func.func @bmm_d0(
//       CHECK:   gpu.launch_func @bmm_d0_kernels::@bmm_d0_kernel_0 blocks in (%{{.+}}, %{{.+}}, %[[Z:.+]])
//       CHECK: gpu.binary @bmm_d0_kernels
func.func @bmm(%a: tensor<8x128x256xf16>, %b: tensor<8x256x64xf16>) -> tensor<8x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x128x64xf32>) -> tensor<8x128x64xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<8x128x256xf16>, tensor<8x256x64xf16>) outs(%f : tensor<8x128x64xf32>) -> tensor<8x128x64xf32>
  return %c : tensor<8x128x64xf32>
}
