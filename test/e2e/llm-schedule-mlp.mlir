// RUN: rm -rf %t && vibegemm-opt %vibegemm_src/examples/mlp_block_f16.mlir --llm-schedule="target=sm_90 artifacts-dir=%t" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t/mlp.plan.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/mlp_d0.ptx -o %t.0.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/mlp_d1.ptx -o %t.1.cubin %}

// Two GEMM dispatches in one function: the function plan runs both, with the
// f16 hidden activation as a temp buffer passed between them.
// CHECK: "kind": "temp",
// CHECK-NEXT: "name": "t0",
// CHECK: "function": "mlp",
// CHECK: "args": [
// CHECK: "buffer": "t0"
// CHECK: "kernel": "mlp_d0_kernel_0",
// CHECK: "buffer": "t0"
// CHECK: "kernel": "mlp_d1_kernel_0",
