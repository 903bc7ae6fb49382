// IREE e2e matmul test function: f32 x f32 -> f32, accumulate=True, shape m=81 k=19 n=41 (ShapesId.SMALL).
//
// Source:   https://github.com/iree-org/iree
//           commit b48a5955575cf8924ffc191f3b0804976e5738b9
//           tests/e2e/matmul/generate_code.py  (generate_function), driven by
//           tests/e2e/matmul/generate_e2e_matmul_tests.py with
//           "--lhs_rhs_type=f32" "--acc_type=f32" (e.g. e2e_matmul_cpu_dt_f32_f32)
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
// Pattern notes: accumulating matmul: the accumulator is a function argument used directly as outs (C += A*B, no fill); odd, non-power-of-two M/N/K.
//
// FRONTEND-SOURCE: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/matmul/generate_code.py
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


func.func @matmul_accumulate_81x19xf32_times_19x41xf32_into_81x41xf32(%lhs: tensor<81x19xf32>, %rhs: tensor<19x41xf32>, %acc: tensor<81x41xf32>) -> tensor<81x41xf32> {
  %result = linalg.matmul   ins(%lhs, %rhs: tensor<81x19xf32>, tensor<19x41xf32>) outs(%acc: tensor<81x41xf32>) -> tensor<81x41xf32>
  return %result: tensor<81x41xf32>
}
