// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile | FileCheck %s --check-prefix=PTX

// A reduction to a scalar: a generic dispatch with a unit parallel loop,
// its fill widened with it.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
#all = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @total(%x: tensor<128xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]} ins(%x : tensor<128xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
