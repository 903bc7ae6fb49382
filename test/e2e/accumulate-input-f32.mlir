// RUN: rm -rf %t && vibegemm-opt %s --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/gemm_acc_d0.ptx -o %t.cubin %}

// C_in + A * B with C_in an input (no fill): one FFMA kernel that loads its
// C tile into the accumulators, accumulates and writes the result; C_in is
// left untouched.
// CHECK-LABEL: func.func @gemm_acc_d0(
//  CHECK-SAME:   %{{.+}}: memref<2048x1024xf32>, %{{.+}}: memref<1024x2048xf32>, %{{.+}}: memref<2048x2048xf32>, %{{.+}}: memref<2048x2048xf32>)
//       CHECK:   gpu.launch_func @gemm_acc_d0_kernels::@gemm_acc_d0_kernel_0
//   CHECK-NOT:   gpu.launch_func
func.func @gemm_acc(%a: tensor<2048x1024xf32>, %b: tensor<1024x2048xf32>, %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2048x1024xf32>, tensor<1024x2048xf32>) outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}
