// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile | FileCheck %s --check-prefix=PTX

// A split row maximum: the partial results start from the combiner's neutral
// element (-inf), not the fill's value.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: tensor<6x1024xf32>) -> tensor<6xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%lowest : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x1024xf32>) outs(%f : tensor<6xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.maximumf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<6xf32>
  return %s : tensor<6xf32>
}
