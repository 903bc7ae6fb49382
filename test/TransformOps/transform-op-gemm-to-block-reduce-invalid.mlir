// Diagnostics of transform.vibegemm.gemm_to_block_reduce: the op's
// verifier, and the silenceable failures that leave the payload unchanged,
// each with a "target op" note on the rejected GEMM.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// A tile of 4 x 8 outputs: every thread would keep 32 partial sums.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @too_many_outputs(%a: memref<4x512xbf16>, %b: memref<512x8xbf16>, %c: memref<4x8xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<4x512xbf16>, memref<512x8xbf16>) outs(%c : memref<4x8xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the block tile holds 32 outputs; at most 16 (every thread keeps a partial sum of each)}}
    %loop = transform.vibegemm.gemm_to_block_reduce %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The GEMM must already be inside a gpu.launch.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @no_launch(%a: memref<1x512xf32>, %b: memref<512x1xf32>, %c: memref<1x1xf32>) {
  // expected-note @below {{target op}}
  linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%a, %b : memref<1x512xf32>, memref<512x1xf32>) outs(%c : memref<1x1xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM is not inside a gpu.launch; map the block loop with gpu.map_forall_to_blocks first}}
    %loop = transform.vibegemm.gemm_to_block_reduce %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f64 operands.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f64_operands(%a: memref<1x512xf64>, %b: memref<512x1xf64>, %c: memref<1x1xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<1x512xf64>, memref<512x1xf64>) outs(%c : memref<1x1xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the block reduction needs f16, bf16 or f32 operands and an f32 accumulator}}
    %loop = transform.vibegemm.gemm_to_block_reduce %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The launch already has threads.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @threads_taken(%a: memref<1x512xf32>, %b: memref<512x1xf32>, %c: memref<1x1xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<1x512xf32>, memref<512x1xf32>) outs(%c : memref<1x1xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the enclosing gpu.launch already has threads; apply this before mapping anything to threads}}
    %loop = transform.vibegemm.gemm_to_block_reduce %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The verifier: threads must be whole warps.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{threads must be a multiple of 32 between 32 and 1024}}
    %loop = transform.vibegemm.gemm_to_block_reduce %mm {threads = 48} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
