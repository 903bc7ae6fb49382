// RUN: rm -rf %t && vibegemm-opt %vibegemm_src/examples/gemm_f32.mlir --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>%t.stderr
// RUN: FileCheck %s --check-prefix=STDERR --input-file=%t.stderr
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/report.json
// RUN: %if ptxas %{ FileCheck %s --check-prefix=RESOURCES --input-file=%t/report.json %}
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/gemm_d0.plan.json
// RUN: FileCheck %s --check-prefix=SCHED --input-file=%t/gemm_d0.schedule.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/gemm_d0.ptx -o %t.cubin %}

// The plain f32 GEMM example end to end with the built-in scheduler: the
// FFMA kernel (transform.vibegemm.gemm_to_ffma).
// STDERR: vibegemm: no LLM endpoint configured; the built-in scheduler ran
// STDERR-EMPTY:
// CHECK-LABEL: func.func @gemm(
//       CHECK:   call @gemm_d0(
// CHECK-LABEL: func.func @gemm_d0(
//       CHECK:   gpu.launch_func @gemm_d0_kernels::@gemm_d0_kernel_0 blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in
//       CHECK: gpu.binary @gemm_d0_kernels
// REPORT: "dispatches": [
// REPORT:   "builtin_schedule": {
// REPORT:     "block": [
// REPORT-NEXT:  128,
// REPORT-NEXT:  128,
// REPORT-NEXT:  32
// REPORT:     "kind": "ffma",
// REPORT:     "stages": 2,
// REPORT-NEXT:     "thread": [
// REPORT-NEXT:       8,
// REPORT-NEXT:       8
// REPORT:     "why_not_staged": null
// REPORT:   "candidates": [
// The FFMA ring: 2 stages x 32 x (128 + 4) f32 per operand.
// REPORT:     "dynamic_shared_bytes": 67584,
// REPORT:     "source": "builtin",
// REPORT:     "status": "ok",
// REPORT:     "timing": "estimated"
// REPORT:   "signature": "mm4096x4096x4096_f32_f32_NN_e0_
// With ptxas present, its resource report lands in the candidate (the
// FFMA ring is dynamic shared memory, which ptxas does not count).
// RESOURCES: "registers": {{[1-9][0-9]*}},
// RESOURCES: "spill_bytes": 0,
// PLAN: "dispatch": "gemm_d0",
// PLAN: "kernel": "gemm_d0_kernel_0",
// PLAN: "ptx": "gemm_d0.ptx",
// PLAN: "version": 1
// SCHED: transform.named_sequence @gemm_d0(
// SCHED: transform.named_sequence @__transform_main(
// SCHED:   transform.include @gemm_d0 failures(propagate)
