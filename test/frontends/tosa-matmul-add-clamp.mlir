// TOSA -> linalg, lowered with upstream MLIR's own TOSA conversion passes:
// a batch-1 f16 x f16 -> f32 tosa.matmul (mixed precision: f16 inputs,
// f32 accumulator/result), + per-channel bias add (broadcast over a size-1
// dim) + tosa.clamp to [0, 6] (ReLU6) -- the classic matmul+bias+activation
// sequence a TFLite/TOSA frontend produces.
//
// Source:   TOSA source written for this corpus (below), in the TOSA 1.0
//           syntax used by upstream llvm/llvm-project
//           mlir/test/Conversion/TosaToLinalg/tosa-to-linalg-named.mlir
//           (tosa.matmul with explicit a_zp/b_zp zero-point operands,
//           "tosa.const" with `values`). The linalg below is the verbatim
//           output of stock mlir-opt-22 (Debian LLVM 22.1.8):
//   mlir-opt-22 tosa-matmul-add-clamp.tosa.mlir --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),canonicalize)"
// Changes:  none to the generated output (only this header prepended).
//
// ---- TOSA source (input to the pipeline) ----
//   func.func @matmul_add_clamp(%a: tensor<1x64x128xf16>, %b: tensor<1x128x96xf16>, %bias: tensor<1x1x96xf32>) -> tensor<1x64x96xf32> {
//     %a_zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
//     %b_zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
//     %0 = tosa.matmul %a, %b, %a_zp, %b_zp : (tensor<1x64x128xf16>, tensor<1x128x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x64x96xf32>
//     %1 = tosa.add %0, %bias : (tensor<1x64x96xf32>, tensor<1x1x96xf32>) -> tensor<1x64x96xf32>
//     %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x64x96xf32>) -> tensor<1x64x96xf32>
//     return %2 : tensor<1x64x96xf32>
//   }
// ---- end TOSA source ----
//
// Pattern notes: linalg.batch_matmul with f16 ins and f32 outs (implicit
// extf in the named op); fill(0.0 f32); bias map (d0, 0, d2) on a 1x1xN
// tensor; clamp lowered to minimumf/maximumf generic; each elementwise op
// gets its own fresh tensor.empty.
//
// FRONTEND-SOURCE: llvm/llvm-project@llvmorg-22.1.8:mlir/lib/Conversion/TosaToLinalg (lowering by mlir-opt-22; TOSA source in header)
//
// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=2e-2 input-scale=0.25" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX
// The compiled function against the input as written, lowered naively
// on the CPU (deterministic inputs; tolerance 2e-2 relative: the input accumulates in f16/bf16 where vibegemm accumulates in f32).
// CPU: ok
// CPU-NEXT: 1
// CPU-NOT: ok
// PTX: gpu.binary @


#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @matmul_add_clamp(%arg0: tensor<1x64x128xf16>, %arg1: tensor<1x128x96xf16>, %arg2: tensor<1x1x96xf32>) -> tensor<1x64x96xf32> {
    %cst = arith.constant 6.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x64x96xf32>
    %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<1x64x96xf32>) -> tensor<1x64x96xf32>
    %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<1x64x128xf16>, tensor<1x128x96xf16>) outs(%1 : tensor<1x64x96xf32>) -> tensor<1x64x96xf32>
    %3 = tensor.empty() : tensor<1x64x96xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<1x64x96xf32>, tensor<1x1x96xf32>) outs(%3 : tensor<1x64x96xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %7 = arith.addf %in, %in_1 : f32
      linalg.yield %7 : f32
    } -> tensor<1x64x96xf32>
    %5 = tensor.empty() : tensor<1x64x96xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<1x64x96xf32>) outs(%5 : tensor<1x64x96xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.minimumf %in, %cst : f32
      %8 = arith.maximumf %7, %cst_0 : f32
      linalg.yield %8 : f32
    } -> tensor<1x64x96xf32>
    return %6 : tensor<1x64x96xf32>
  }
}

