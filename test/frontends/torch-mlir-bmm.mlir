// torch-mlir: aten.bmm (torch.bmm) lowered to linalg-on-tensors by
// torch-mlir's FX importer + torch-to-linalg pipeline.
//
// Source:   https://github.com/llvm/torch-mlir
//           commit e795669a346f0ad8871192197d8d45a7e6948691
//           test/python/fx_importer/iree_test/linalg-ir/Bmm.mlir
// Producer: torch-mlir (fx.export_and_import, output_type=linalg-on-tensors).
// Changes:  none to the IR (verbatim); only this header comment was added.
//
// Pattern notes: batch 8, M=128, K=8, N=128 (a rank-8 "outer-product-like"
// bmm, K is tiny); fill(0) + linalg.batch_matmul; ml_program global_seed.
//
// FRONTEND-SOURCE: llvm/torch-mlir@e795669a346f0ad8871192197d8d45a7e6948691:test/python/fx_importer/iree_test/linalg-ir/Bmm.mlir
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


module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @main(%arg0: tensor<8x128x8xf32>, %arg1: tensor<8x8x128xf32>) -> tensor<8x128x128xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x128x128xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
    %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<8x128x8xf32>, tensor<8x8x128xf32>) outs(%1 : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
    return %2 : tensor<8x128x128xf32>
  }
}
