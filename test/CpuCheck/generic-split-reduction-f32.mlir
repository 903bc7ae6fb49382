// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile | FileCheck %s --check-prefix=PTX

// Split reductions (partial results over consecutive elements, then a
// combining kernel) against the unscheduled op: a sum of squares over
// [1, S, D] rows as layer norm's variance has it, with its unit dimensions.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @variance_sums(%x: tensor<1x48x256xf32>) -> tensor<1x48x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x48x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x48x1xf32>) -> tensor<1x48x1xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x48x256xf32>) outs(%f : tensor<1x48x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %y = arith.addf %sq, %acc : f32
    linalg.yield %y : f32
  } -> tensor<1x48x1xf32>
  return %s : tensor<1x48x1xf32>
}
