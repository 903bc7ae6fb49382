// REQUIRES: libdevice
// RUN: rm -rf %t && vibegemm-opt %vibegemm_src/examples/gemm_bias_gelu_bf16.mlir --llm-schedule="artifacts-dir=%t target=sm_80" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t/linear_gelu_d0.ptx -o %t.cubin %}
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/report.json

// The report names the tensor-core schedule the built-in scheduler chose.
// REPORT:      "builtin_schedule": {
// REPORT-NEXT:   "block": [
// REPORT-NEXT:     128,
// REPORT-NEXT:     256,
// REPORT-NEXT:     64
// REPORT-NEXT:   ],
// REPORT-NEXT:   "consumers": null,
// REPORT-NEXT:   "kind": "tensor_core",
// REPORT-NEXT:   "padded_operands": null,
// REPORT-NEXT:   "padded_row_bytes": null,
// REPORT-NEXT:   "split_k": 1,
// REPORT-NEXT:   "stages": 3,
// REPORT-NEXT:   "thread": null,
// REPORT-NEXT:   "threads": null,
// REPORT-NEXT:   "warps": [
// REPORT-NEXT:     2,
// REPORT-NEXT:     4

// bf16 nn.Linear (transposed weight) + bias + GELU(tanh) fused into one
// kernel, for sm_80.
// CHECK-LABEL: func.func @linear_gelu_d0(
//       CHECK:   gpu.launch_func @linear_gelu_d0_kernels::@linear_gelu_d0_kernel_0
//   CHECK-NOT:   gpu.launch_func
//       CHECK: gpu.binary @linear_gelu_d0_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80"
