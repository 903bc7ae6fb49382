// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX

// A GEMM operand that is a linalg.fill, and tensor-level arith.addf/truncf after the GEMM.
// Checked on the CPU against the input as written, and compiled to PTX.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
func.func @fillb(%a: tensor<64x32xf32>, %x: tensor<64x48xf32>) -> tensor<64x48xbf16> {
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.5 : f32
  %eb = tensor.empty() : tensor<32x48xf32>
  %b = linalg.fill ins(%h : f32) outs(%eb : tensor<32x48xf32>) -> tensor<32x48xf32>
  %o = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %s = arith.addf %mm, %x : tensor<64x48xf32>
  %t = arith.truncf %s : tensor<64x48xf32> to tensor<64x48xbf16>
  return %t : tensor<64x48xbf16>
}
