// vibegemm-programmatic-launch: each launched kernel waits for the grid
// before it at entry, then releases its dependents, once however many
// launches share it; each launch is marked for the plan.
// RUN: vibegemm-opt %s --split-input-file --vibegemm-programmatic-launch --verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.module @d_kernels
// CHECK: gpu.func @d_kernel_0(%{{.*}}: memref<64xf32>) kernel
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: griddepcontrol
// CHECK: gpu.func @d_kernel_1(%{{.*}}: memref<64xf32>) kernel
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: griddepcontrol
// CHECK-LABEL: func.func @d(
// CHECK: gpu.launch_func @d_kernels::@d_kernel_0 {{.*}} {vibegemm.programmatic}
// CHECK: gpu.launch_func @d_kernels::@d_kernel_1 {{.*}} {vibegemm.programmatic}
// CHECK: gpu.launch_func @d_kernels::@d_kernel_0 {{.*}} {vibegemm.programmatic}
module attributes {gpu.container_module} {
  gpu.module @d_kernels {
    gpu.func @d_kernel_0(%buf: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %c = arith.constant 1.0 : f32
      memref.store %c, %buf[%i] : memref<64xf32>
      gpu.return
    }
    gpu.func @d_kernel_1(%buf: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %buf[%i] : memref<64xf32>
      gpu.return
    }
  }
  func.func @d(%buf: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @d_kernels::@d_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%buf : memref<64xf32>)
    gpu.launch_func @d_kernels::@d_kernel_1 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%buf : memref<64xf32>)
    gpu.launch_func @d_kernels::@d_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%buf : memref<64xf32>)
    return
  }
}

// -----

// Kernels already serialized have no body to wait in.
module attributes {gpu.container_module} {
  gpu.binary @e_kernels [#gpu.object<#nvvm.target, "">]
  func.func @e(%buf: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{launches a kernel with no body here: the pass runs before kernels are serialized}}
    gpu.launch_func @e_kernels::@e_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<64xf32>)
    return
  }
}
