// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX

// One fill shared by two GEMMs and one bias by two epilogues (CSE), and their results multiplied with tensor-level arith.
// Checked on the CPU against the input as written, and compiled to PTX.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @shared(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<32x48xf32>, %bias: tensor<48xf32>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %bias : tensor<64x48xf32>, tensor<48xf32>) outs(%o : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %w: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x48xf32>
  %e2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m2, %bias : tensor<64x48xf32>, tensor<48xf32>) outs(%o : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %w: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x48xf32>
  %r = arith.mulf %e1, %e2 : tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
