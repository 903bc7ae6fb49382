// RUN: rm -rf %t && vibegemm-opt %vibegemm_src/examples/gemm_f32.mlir --llm-schedule="artifacts-dir=%t" -o %t.first.mlir 2>/dev/null
// RUN: vibegemm-opt %vibegemm_src/examples/gemm_f32.mlir --vibegemm-form-dispatches -o %t.dispatches.mlir
// RUN: vibegemm-opt %t.dispatches.mlir --transform-preload-library=transform-library-paths=%t/gemm_d0.schedule.mlir \
// RUN:   --transform-interpreter --vibegemm-lower-to-ptx | FileCheck %s

// A schedule artifact replays on its own through the transform interpreter
// (the "study a schedule" loop in docs/cli.md).
// CHECK-LABEL: func.func @gemm_d0(
//       CHECK:   gpu.launch_func @gemm_d0_kernels::@gemm_d0_kernel_0 blocks in
//       CHECK: gpu.binary @gemm_d0_kernels
//  CHECK-SAME: .entry gemm_d0_kernel_0
