// REQUIRES: libdevice
// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX

// linalg.elementwise as an epilogue, then linalg.softmax.
// Checked on the CPU against the input as written, and compiled to PTX.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
func.func @sm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %bias: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %o2 = tensor.empty() : tensor<64x48xf32>
  %e = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%mm, %bias : tensor<64x48xf32>, tensor<64x48xf32>) outs(%o2 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %o3 = tensor.empty() : tensor<64x48xf32>
  %s = linalg.softmax dimension(1) ins(%e : tensor<64x48xf32>) outs(%o3 : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %s : tensor<64x48xf32>
}
