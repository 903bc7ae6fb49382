// IREE e2e matmul test function: f16 x f16 -> f32, transposed RHS (B stored [N,K]), accumulate=False, shape m=512 k=128 n=512 (ShapesId.EASY_LARGE_STATIC).
//
// Source:   https://github.com/iree-org/iree
//           commit b48a5955575cf8924ffc191f3b0804976e5738b9
//           tests/e2e/matmul/generate_code.py  (generate_function), driven by
//           tests/e2e/matmul/generate_e2e_matmul_tests.py with
//           "--lhs_rhs_type=f16" "--acc_type=f32" "--transpose_rhs" "--shapes=easy_large_static" (e2e_matmul_*_tb_f16)
//           (the .mlir is generated at build time by that script; this is
//           the function it emits for this shape/type, static dynamicity,
//           no compilation_info).
// Changes:
//   - util.func / util.return (IREE util dialect) -> func.func / return so
//     it parses with stock mlir-opt; the generated harness around it
//     (util.func private @module.* import declarations, the YAML call trace
//     and the iree-e2e-matmul-test runner) is dropped.
//   - otherwise the text is the generator's template output, including its
//     spacing ("linalg.matmul   ins(", "arith.constant 0.0: ...").
//
// Pattern notes: linalg.matmul with explicit indexing_maps (RHS map (d1, d2), i.e. A * B^T), mixed precision f16 ins / f32 outs, fill(0.0 : f32). Real sizes kept (512x128x512).
//
// FRONTEND-SOURCE: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/matmul/generate_code.py
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


func.func @matmul_512x128xf16_times_512x128xf16_into_512x512xf32(%lhs: tensor<512x128xf16>, %rhs: tensor<512x128xf16>) -> tensor<512x512xf32> {
  %init_acc = tensor.empty() : tensor<512x512xf32>
  %c0_acc_type = arith.constant 0.0: f32
  %acc = linalg.fill ins(%c0_acc_type : f32) outs(%init_acc : tensor<512x512xf32>) -> tensor<512x512xf32>
  %result = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]  ins(%lhs, %rhs: tensor<512x128xf16>, tensor<512x128xf16>) outs(%acc: tensor<512x512xf32>) -> tensor<512x512xf32>
  return %result: tensor<512x512xf32>
}
