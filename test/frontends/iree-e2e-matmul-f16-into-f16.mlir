// IREE e2e matmul test function: f16 x f16 -> f16 (f16 ACCUMULATOR), accumulate=False, shape m=15 k=37 n=7 (ShapesId.SMALL).
//
// Source:   https://github.com/iree-org/iree
//           commit b48a5955575cf8924ffc191f3b0804976e5738b9
//           tests/e2e/matmul/generate_code.py  (generate_function), driven by
//           tests/e2e/matmul/generate_e2e_matmul_tests.py with
//           "--lhs_rhs_type=f16" "--acc_type=f16"
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
// Pattern notes: f16 accumulator: tensor.empty + fill(0.0 : f16) + linalg.matmul with f16 outs; odd tiny N=7, K=37.
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


func.func @matmul_15x37xf16_times_37x7xf16_into_15x7xf16(%lhs: tensor<15x37xf16>, %rhs: tensor<37x7xf16>) -> tensor<15x7xf16> {
  %init_acc = tensor.empty() : tensor<15x7xf16>
  %c0_acc_type = arith.constant 0.0: f16
  %acc = linalg.fill ins(%c0_acc_type : f16) outs(%init_acc : tensor<15x7xf16>) -> tensor<15x7xf16>
  %result = linalg.matmul   ins(%lhs, %rhs: tensor<15x37xf16>, tensor<37x7xf16>) outs(%acc: tensor<15x7xf16>) -> tensor<15x7xf16>
  return %result: tensor<15x7xf16>
}
