// RUN: vibegemm-opt %s --vibegemm-finalize-binaries --split-input-file --verify-diagnostics

// libdevice was not linked: the PTX declares what it calls but no driver
// could resolve it.
module attributes {gpu.container_module} {
  // expected-error @below {{kernels of d0_kernels call __nv_tanhf (and more), which needs CUDA's libdevice; it was not found. Install the CUDA toolkit or point CUDA_HOME at it}}
  gpu.binary @d0_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\n.extern .func  (.param .b32 func_retval0) __nv_tanhf\n(\n\t.param .b32 __nv_tanhf_param_0\n)\n;\n.extern .func __nv_erff(.param .b32 p);\n">]
}
