// Llama-2 SwiGLU MLP in linalg-on-tensors, bf16, as committed by Intel's
// graph-compiler (a oneDNN-Graph -> MLIR compiler) as a real Llama-2-7B
// decoder-layer workload for its correctness/benchmark tool benchgc:
//   y = residual + down_proj( silu(gate_proj(x)) * up_proj(x) )
// with nn.Linear weights stored [out, in] and consumed TRANSPOSED by the
// matmul (matmul_transpose_b), everything in bf16 incl. the accumulators.
//
// Source:   https://github.com/intel/graph-compiler
//           commit d5e6a56ee9db360da45e6fcc2845aa6308eadd09
//           (file added in 67b75ca935e93303a4e204b8db1ee1e16b3eafa6,
//            "Introduce benchgc")
//           test/benchgc/cases/llama2.mlir
// Changes:
//   - cut to the MLP: %collapsed_8 .. %45 of @entry. The RMSNorm output %25
//     became argument %x, the attention residual %4 became %residual,
//     and %arg5/%arg6/%arg7 were renamed %gate_proj/%up_proj/%down_proj.
//     The RMSNorm before and after the MLP (f32 islands via linalg.copy,
//     linalg.powf, linalg.reduce) and the o_proj are dropped; only %45 is
//     returned (the original returns the post-norm value and %45).
//   - linalg.matmul_transpose_b -> linalg.matmul with indexing_maps
//     [(d0, d2), (d1, d2), (d0, d1)]: matmul_transpose_b was removed from
//     upstream MLIR and does not parse in mlir-opt-22; the indexing_maps
//     form is its upstream replacement (identical semantics).
//   - Llama-2-7B sizes shrunk: hidden 4096 -> 128, intermediate
//     11008 -> 344 (same 2.6875 ratio, not a power of two); 32 tokens kept.
//   - everything else verbatim (SSA names, per-op constants, attribute
//     llvm.emit_c_interface).
//
// Pattern notes: named elementwise ops (linalg.negf/exp/add/div/mul) instead
// of generics; SiLU built as x * 1/(1+exp(-x)) with a splat
// dense<1.0> : tensor<1x32x344xbf16> constant operand; one tensor.empty (%29)
// reused as outs by four chained ops; the same input %x collapsed twice
// (collapse_shape 1x32xH -> 32xH before each matmul, expand_shape after);
// bf16 fill(0) + bf16 accumulation; transposed-B matmuls (weights [N, K]).
//
// FRONTEND-SOURCE: intel/graph-compiler@d5e6a56ee9db360da45e6fcc2845aa6308eadd09:test/benchgc/cases/llama2.mlir
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


module {
  func.func @entry(%x: tensor<1x32x128xbf16>, %residual: tensor<1x32x128xbf16>, %gate_proj: tensor<344x128xbf16>, %up_proj: tensor<344x128xbf16>, %down_proj: tensor<128x344xbf16>) -> tensor<1x32x128xbf16> attributes {llvm.emit_c_interface} {
    %collapsed_8 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x32x128xbf16> into tensor<32x128xbf16>
    %cst_9 = arith.constant 0.000000e+00 : bf16
    %26 = tensor.empty() : tensor<32x344xbf16>
    %27 = linalg.fill ins(%cst_9 : bf16) outs(%26 : tensor<32x344xbf16>) -> tensor<32x344xbf16>
    %28 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%collapsed_8, %gate_proj : tensor<32x128xbf16>, tensor<344x128xbf16>) outs(%27 : tensor<32x344xbf16>) -> tensor<32x344xbf16>
    %expanded_10 = tensor.expand_shape %28 [[0, 1], [2]] output_shape [1, 32, 344] : tensor<32x344xbf16> into tensor<1x32x344xbf16>
    %29 = tensor.empty() : tensor<1x32x344xbf16>
    %cst_11 = arith.constant dense<1.000000e+00> : tensor<1x32x344xbf16>
    %30 = linalg.negf ins(%expanded_10 : tensor<1x32x344xbf16>) outs(%29 : tensor<1x32x344xbf16>) -> tensor<1x32x344xbf16>
    %31 = linalg.exp ins(%30 : tensor<1x32x344xbf16>) outs(%29 : tensor<1x32x344xbf16>) -> tensor<1x32x344xbf16>
    %32 = linalg.add ins(%cst_11, %31 : tensor<1x32x344xbf16>, tensor<1x32x344xbf16>) outs(%29 : tensor<1x32x344xbf16>) -> tensor<1x32x344xbf16>
    %33 = linalg.div ins(%cst_11, %32 : tensor<1x32x344xbf16>, tensor<1x32x344xbf16>) outs(%29 : tensor<1x32x344xbf16>) -> tensor<1x32x344xbf16>
    %34 = tensor.empty() : tensor<1x32x344xbf16>
    %35 = linalg.mul ins(%33, %expanded_10 : tensor<1x32x344xbf16>, tensor<1x32x344xbf16>) outs(%34 : tensor<1x32x344xbf16>) -> tensor<1x32x344xbf16>
    %collapsed_12 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x32x128xbf16> into tensor<32x128xbf16>
    %cst_13 = arith.constant 0.000000e+00 : bf16
    %36 = tensor.empty() : tensor<32x344xbf16>
    %37 = linalg.fill ins(%cst_13 : bf16) outs(%36 : tensor<32x344xbf16>) -> tensor<32x344xbf16>
    %38 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%collapsed_12, %up_proj : tensor<32x128xbf16>, tensor<344x128xbf16>) outs(%37 : tensor<32x344xbf16>) -> tensor<32x344xbf16>
    %expanded_14 = tensor.expand_shape %38 [[0, 1], [2]] output_shape [1, 32, 344] : tensor<32x344xbf16> into tensor<1x32x344xbf16>
    %39 = tensor.empty() : tensor<1x32x344xbf16>
    %40 = linalg.mul ins(%35, %expanded_14 : tensor<1x32x344xbf16>, tensor<1x32x344xbf16>) outs(%39 : tensor<1x32x344xbf16>) -> tensor<1x32x344xbf16>
    %collapsed_15 = tensor.collapse_shape %40 [[0, 1], [2]] : tensor<1x32x344xbf16> into tensor<32x344xbf16>
    %cst_16 = arith.constant 0.000000e+00 : bf16
    %41 = tensor.empty() : tensor<32x128xbf16>
    %42 = linalg.fill ins(%cst_16 : bf16) outs(%41 : tensor<32x128xbf16>) -> tensor<32x128xbf16>
    %43 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%collapsed_15, %down_proj : tensor<32x344xbf16>, tensor<128x344xbf16>) outs(%42 : tensor<32x128xbf16>) -> tensor<32x128xbf16>
    %expanded_17 = tensor.expand_shape %43 [[0, 1], [2]] output_shape [1, 32, 128] : tensor<32x128xbf16> into tensor<1x32x128xbf16>
    %44 = tensor.empty() : tensor<1x32x128xbf16>
    %45 = linalg.add ins(%residual, %expanded_17 : tensor<1x32x128xbf16>, tensor<1x32x128xbf16>) outs(%44 : tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16>
    return %45 : tensor<1x32x128xbf16>
  }
}
