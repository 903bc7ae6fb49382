// RUN: rm -rf %t && vibegemm-opt %s --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/ragged_k_d0.ptx -o %t.cubin %}

// K = 1000 is no multiple of the 16-wide K tile: the FFMA kernel's copies
// zero-fill the last K tile past K. One kernel, no split.
// CHECK-LABEL: func.func @ragged_k_d0(
//       CHECK:   gpu.launch_func @ragged_k_d0_kernels::@ragged_k_d0_kernel_0
//   CHECK-NOT:   gpu.launch_func
func.func @ragged_k(%a: tensor<1024x1000xf32>, %b: tensor<1000x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c = linalg.matmul ins(%a, %b : tensor<1024x1000xf32>, tensor<1000x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}
