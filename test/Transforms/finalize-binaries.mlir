// RUN: vibegemm-opt %s --vibegemm-finalize-binaries --split-input-file | FileCheck %s

// Compile times go (identical compiles give identical output); other
// properties and the PTX stay.
// CHECK-LABEL: gpu.binary @timed
//  CHECK-SAME: properties = {keep = 1 : i64}, assembly = ".version 8.0
//  CHECK-NOT: TimeInMs
module attributes {gpu.container_module} {
  gpu.binary @timed [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {LLVMIRToISATimeInMs = 12 : i64, ISAToBinaryTimeInMs = 3 : i64, keep = 1 : i64}, assembly = ".version 8.0\n.visible .entry k()\n{\n\tret;\n}\n">]
}

// -----

// With only compile times, no properties remain.
// CHECK-LABEL: gpu.binary @only_times
//  CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly =
module attributes {gpu.container_module} {
  gpu.binary @only_times [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {LLVMIRToISATimeInMs = 12 : i64}, assembly = ".version 8.0\n">]
}
