// Diagnostics of transform.vibegemm.gemm_to_ffma: the op's verifier, and
// the silenceable failures that leave the payload unchanged, each with a
// "target op" note on the rejected GEMM.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @bf16_operands(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{ffma takes f32 operands; f16 and bf16 belong on the tensor cores (gemm_to_mma_sync, gemm_to_wgmma)}}
    %loop = transform.vibegemm.gemm_to_ffma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An f16 accumulator is refused: the kernel accumulates in f32.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f16_accumulator(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf16>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf16>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{ffma needs f16, bf16 or f32 operands and an f32 accumulator}}
    %loop = transform.vibegemm.gemm_to_ffma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Outside a gpu.launch there is no block to fill.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @no_launch(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note @below {{target op}}
  linalg.matmul indexing_maps = [#mA, #mBt, #mC]
      ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM is not inside a gpu.launch; map the block loop with gpu.map_forall_to_blocks first}}
    %loop = transform.vibegemm.gemm_to_ffma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A 16x16 tile with 4x4 outputs per thread is 16 threads: not a warp.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @too_few_threads(%a: memref<16x64xf32>, %b: memref<16x64xf32>, %c: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<16x64xf32>, memref<16x64xf32>) outs(%c : memref<16x16xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{a 16x16 block tile with 4x4 outputs per thread needs 16 threads (32 to 1024)}}
    %loop = transform.vibegemm.gemm_to_ffma %mm {thread_tile = array<i64: 4, 4>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 8 stages of 64-deep K tiles over 256x256 need 1.1 MB of shared memory.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @ring_too_big(%a: memref<256x64xf32>, %b: memref<256x64xf32>, %c: memref<256x256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<256x64xf32>, memref<256x64xf32>) outs(%c : memref<256x256xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the 8-stage ring needs 1064960 bytes of shared memory (at most 232448 on sm_90a)}}
    %loop = transform.vibegemm.gemm_to_ffma %mm {block_k = 64, stages = 8} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The verifier: thread tiles are multiples of 4 (float4 fragments).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @odd_thread_tile(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_ffma' op thread_tile must be two positive multiples of 4 [tm, tn]}}
    %loop = transform.vibegemm.gemm_to_ffma %mm {thread_tile = array<i64: 6, 8>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// ... of at most 128 accumulators per thread.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @huge_thread_tile(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_ffma' op a thread tile of more than 128 accumulators would spill}}
    %loop = transform.vibegemm.gemm_to_ffma %mm {thread_tile = array<i64: 16, 16>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @bad_stages(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_ffma' op stages must be between 2 and 8}}
    %loop = transform.vibegemm.gemm_to_ffma %mm {stages = 1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
