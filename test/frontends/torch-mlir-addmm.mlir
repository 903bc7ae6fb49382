// torch-mlir: aten.addmm (torch.addmm(input, mat1, mat2)) lowered to
// linalg-on-tensors by torch-mlir's FX importer + torch-to-linalg pipeline.
//
// Source:   https://github.com/llvm/torch-mlir
//           commit 1998bd5b219d136ae202f90c0e81e616c005782e
//           test/python/fx_importer/iree_test/linalg-ir/Addmm.mlir
// Producer: torch-mlir (fx.export_and_import, output_type=linalg-on-tensors);
//           the file in that directory is the committed importer output.
// Changes:  none to the IR (verbatim); only this header comment was added.
//
// Pattern notes: torch-mlir does NOT initialise the accumulator with the
// bias. It emits matmul into a zero-filled tensor.empty and then a separate
// elementwise add generic whose outs reuses the same tensor.empty (%0) that
// the fill wrote into. Bias here is a full 128x128 tensor (no broadcast).
//
// FRONTEND-SOURCE: llvm/torch-mlir@1998bd5b219d136ae202f90c0e81e616c005782e:test/python/fx_importer/iree_test/linalg-ir/Addmm.mlir
//
// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4 input-scale=1.0" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX
// The compiled function against the input as written, lowered naively
// on the CPU (deterministic inputs; tolerance 1e-4).
// CPU: ok
// CPU-NEXT: 1
// CPU-NOT: ok
// PTX: gpu.binary @


#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @main(%arg0: tensor<128x128xf32>, %arg1: tensor<128x256xf32>, %arg2: tensor<256x128xf32>) -> tensor<128x128xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<128x128xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x128xf32>) -> tensor<128x128xf32>
    %2 = linalg.matmul ins(%arg1, %arg2 : tensor<128x256xf32>, tensor<256x128xf32>) outs(%1 : tensor<128x128xf32>) -> tensor<128x128xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg0 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%0 : tensor<128x128xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.addf %in, %in_0 : f32
      linalg.yield %4 : f32
    } -> tensor<128x128xf32>
    return %3 : tensor<128x128xf32>
  }
}
