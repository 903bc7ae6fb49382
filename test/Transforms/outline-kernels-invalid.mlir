// RUN: vibegemm-opt %s --vibegemm-outline-kernels --split-input-file --verify-diagnostics

// A dispatch whose schedule left a linalg op on the host.
// expected-error @below {{the schedule left work outside any gpu.launch; every linalg op of a dispatch must be mapped to the GPU}}
func.func @unmapped(%a: memref<64xf32>) attributes {vibegemm.dispatch} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  return
}

// -----

// Host functions that are not dispatches may keep linalg ops (gemm-only).
func.func @host(%a: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  return
}
