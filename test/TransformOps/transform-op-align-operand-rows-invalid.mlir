// Diagnostics of transform.vibegemm.align_operand_rows: silenceable
// failures that leave the payload unchanged, each with a "target op" note.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// An operand allocated inside the launch cannot be copied before it.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @inner_operand(%b: memref<100x128xbf16>, %c: memref<64x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloca() : memref<64x100xbf16>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<64x100xbf16>, memref<100x128xbf16>) outs(%c : memref<64x128xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{operands must view static buffers defined outside the gpu.launch}}
    transform.vibegemm.align_operand_rows %mm : !transform.any_op
    transform.yield
  }
}

// -----

// Still on tensors.
func.func @tensors(%a: tensor<64x100xbf16>, %b: tensor<100x128xbf16>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-note @below {{target op}}
  %r = linalg.matmul ins(%a, %b : tensor<64x100xbf16>, tensor<100x128xbf16>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM must be bufferized first (it works on tensors)}}
    transform.vibegemm.align_operand_rows %mm : !transform.any_op
    transform.yield
  }
}

// -----

// Not inside a gpu.launch.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @no_launch(%a: memref<64x100xbf16>, %b: memref<100x128xbf16>, %c: memref<64x128xf32>) {
  // expected-note @below {{target op}}
  linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%a, %b : memref<64x100xbf16>, memref<100x128xbf16>) outs(%c : memref<64x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM is not inside a gpu.launch; map the block loop with gpu.map_forall_to_blocks first}}
    transform.vibegemm.align_operand_rows %mm : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{operands must be distinct input indices, 0 or 1}}
    transform.vibegemm.align_operand_rows %mm {operands = array<i64: 2>} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{operands must be distinct input indices, 0 or 1}}
    transform.vibegemm.align_operand_rows %mm {operands = array<i64: 1, 1>} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{operands must name at least one input}}
    transform.vibegemm.align_operand_rows %mm {operands = array<i64>} : !transform.any_op
    transform.yield
  }
}

// -----

// row_bytes must be a power of two of at least 16 bytes (TMA's stride unit).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{row_bytes must be a power of two from 16 to 1024}}
    transform.vibegemm.align_operand_rows %mm {row_bytes = 48 : i64} : !transform.any_op
    transform.yield
  }
}
