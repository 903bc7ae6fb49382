// Diagnostics of transform.vibegemm.softmax_to_block_reduce: the op's
// verifier, and the silenceable failures that leave the payload unchanged,
// each with a "target op" note on the rejected softmax.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// A softmax over the first dimension: rows are the last one.
func.func @first_dimension(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.softmax dimension(0) ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{only softmax tiles over their last dimension, with any dimensions before the rows of size 1, are handled}}
    %loop = transform.vibegemm.softmax_to_block_reduce %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batch of two in one tile: leading dimensions must be tiled to 1.
func.func @batch_of_two(%x: memref<2x4x64xf32>, %y: memref<2x4x64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.softmax dimension(2) ins(%x : memref<2x4x64xf32>) outs(%y : memref<2x4x64xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{only softmax tiles over their last dimension, with any dimensions before the rows of size 1, are handled}}
    %loop = transform.vibegemm.softmax_to_block_reduce %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Still on tensors.
func.func @tensors(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  // expected-note @below {{target op}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %s : tensor<4x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the softmax must be bufferized first (it works on tensors)}}
    %loop = transform.vibegemm.softmax_to_block_reduce %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Not inside a gpu.launch.
func.func @no_launch(%x: memref<4x64xf16>, %y: memref<4x64xf16>) {
  // expected-note @below {{target op}}
  linalg.softmax dimension(1) ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the softmax is not inside a gpu.launch; map the block loop with gpu.map_forall_to_blocks first}}
    %loop = transform.vibegemm.softmax_to_block_reduce %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f64 rows.
func.func @f64_rows(%x: memref<4x64xf64>, %y: memref<4x64xf64>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.softmax dimension(1) ins(%x : memref<4x64xf64>) outs(%y : memref<4x64xf64>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the softmax needs f16, bf16 or f32 elements}}
    %loop = transform.vibegemm.softmax_to_block_reduce %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The verifier: at most 1024 threads.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{threads must be a multiple of 32 between 32 and 1024}}
    %loop = transform.vibegemm.softmax_to_block_reduce %sm {threads = 2048} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
