// RUN: rm -rf %t && vibegemm-opt %s --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/ragged_d0.ptx -o %t.cubin %}

// 8205x2949x5921: no power-of-two tile divides it. B's rows (2949 floats)
// are not 16-byte aligned, so a first kernel (a block per row) copies B
// into a zero-padded 5921x2952 buffer, which the FFMA kernel then stages
// with 16-byte copies. The FFMA kernel takes the problem whole: 24x65
// blocks of 128x128 outputs (256 threads, 8x8 each, a 2-stage ring of
// 2 x 32 x 132 f32 per operand), masked at the edges.
// (The CPU check's staged schedule splits it instead:
// CpuCheck/staged-split-ragged-f32.mlir.)
// CHECK-LABEL: func.func @ragged_d0(
//  CHECK-SAME:     %[[A:[a-zA-Z0-9_]+]]: memref<8205x5921xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<5921x2949xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<8205x2949xf32>
//       CHECK:   %[[PAD:.*]] = memref.alloc() {{.*}}: memref<5921x2952xf32>
//       CHECK:   gpu.launch_func @ragged_d0_kernels::@ragged_d0_kernel_0 blocks in (%c5921, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[B]] : memref<5921x2949xf32>, %[[PAD]] : memref<5921x2952xf32>)
//       CHECK:   gpu.launch_func @ragged_d0_kernels::@ragged_d0_kernel_1 blocks in (%c24, %c65, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c67584_i32 args(%[[A]] : memref<8205x5921xf32>, %[[PAD]] : memref<5921x2952xf32>, %[[C]] : memref<8205x2949xf32>)
//   CHECK-NOT:   gpu.launch_func
//       CHECK: gpu.binary @ragged_d0_kernels
func.func @ragged(%a: tensor<8205x5921xf32>, %b: tensor<5921x2949xf32>) -> tensor<8205x2949xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8205x2949xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8205x5921xf32>, tensor<5921x2949xf32>) outs(%f : tensor<8205x2949xf32>) -> tensor<8205x2949xf32>
  return %c : tensor<8205x2949xf32>
}
