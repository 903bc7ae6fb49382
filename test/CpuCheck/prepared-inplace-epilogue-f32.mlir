// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX

// An epilogue written in place, ins(%m) outs(%m) (Triton's lowering, a GPU MLP benchmark).
// Checked on the CPU against the input as written, and compiled to PTX.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @inplace(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x48xf32>) outs(%mm : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
