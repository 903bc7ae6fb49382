// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX

// A reduction that accumulates onto a function argument becomes a generic
// dispatch whose first step copies the argument into a tensor of its own
// (role "init", fused into the tiles like a fill); bufferization used to
// leave that copy outside any kernel ("the schedule left work outside any
// gpu.launch"). The op is an i8 x i8 -> i32 contraction over packed
// [blocks, rows, K] tiles, which no GEMM path takes (integer operands), as
// tpp-mlir's `mlir-gen --float-type=mx-i8 --output=generic` writes it:
// reconstructed from the MXI8-GENERIC CHECK lines of
// libxsmm/tpp-mlir test/Integration/mlir-gen-matmul.mlir, sizes shrunk.
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d5, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>
func.func @entry(%arg0: tensor<2x4x16x32xi8>, %arg1: tensor<3x4x32x16xi8>, %arg2: tensor<2x3x16x16xi32>) -> tensor<2x3x16x16xi32> {
  %0 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x4x16x32xi8>, tensor<3x4x32x16xi8>) outs(%arg2 : tensor<2x3x16x16xi32>) {
  ^bb0(%in: i8, %in_0: i8, %out: i32):
    %1 = arith.extsi %in : i8 to i32
    %2 = arith.extsi %in_0 : i8 to i32
    %3 = arith.muli %1, %2 : i32
    %4 = arith.addi %out, %3 : i32
    linalg.yield %4 : i32
  } -> tensor<2x3x16x16xi32>
  return %0 : tensor<2x3x16x16xi32>
}
