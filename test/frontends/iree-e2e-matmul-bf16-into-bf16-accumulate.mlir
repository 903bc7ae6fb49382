// IREE e2e matmul test function: bf16 x bf16 -> bf16 (bf16 ACCUMULATOR, outs of bf16), accumulate=True, shape m=81 k=19 n=41 (ShapesId.SMALL).
//
// Source:   https://github.com/iree-org/iree
//           commit b48a5955575cf8924ffc191f3b0804976e5738b9
//           tests/e2e/matmul/generate_code.py  (generate_function), driven by
//           tests/e2e/matmul/generate_e2e_matmul_tests.py with
//           "--lhs_rhs_type=bf16" "--acc_type=bf16" (e2e_matmul_cpu_dt_bf16_bf16)
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
// Pattern notes: bf16 accumulator passed in as an argument and used as outs (C += A*B all in bf16); odd M/N/K.
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


func.func @matmul_accumulate_81x19xbf16_times_19x41xbf16_into_81x41xbf16(%lhs: tensor<81x19xbf16>, %rhs: tensor<19x41xbf16>, %acc: tensor<81x41xbf16>) -> tensor<81x41xbf16> {
  %result = linalg.matmul   ins(%lhs, %rhs: tensor<81x19xbf16>, tensor<19x41xbf16>) outs(%acc: tensor<81x41xbf16>) -> tensor<81x41xbf16>
  return %result: tensor<81x41xbf16>
}
