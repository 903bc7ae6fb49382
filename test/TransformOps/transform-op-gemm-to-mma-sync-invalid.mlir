// Diagnostics of transform.vibegemm.gemm_to_mma_sync: the op's verifier, and
// the silenceable failures that leave the payload unchanged, each with a
// "target op" note on the rejected GEMM.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f32_operands(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{f32 operands take mma.sync only with f32_precision = "tf32" or "3xtf32" (which changes accuracy; gemm_to_ffma keeps f32 accuracy)}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f32_precision on 16-bit operands is refused: it names a conversion of f32.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @precision_on_bf16(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
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
    // expected-error @below {{f32_precision applies to f32 operands only}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {f32_precision = "tf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An f16 accumulator is refused as well: the kernel accumulates in f32.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f16_accumulator(%a: memref<32x64xf16>, %b: memref<32x64xf16>, %c: memref<32x32xf16>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf16>, memref<32x64xf16>) outs(%c : memref<32x32xf16>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{mma.sync needs f16, bf16 or f32 operands and an f32 accumulator}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// FP8 operands are wgmma's only (sm_90a).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f8_operands(%a: memref<32x64xf8E4M3FN>, %b: memref<32x64xf8E4M3FN>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xf8E4M3FN>, memref<32x64xf8E4M3FN>) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{FP8 operands run on gemm_to_wgmma only (sm_90a)}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @no_launch(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  // expected-note @below {{target op}}
  linalg.matmul indexing_maps = [#mA, #mBt, #mC]
      ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%c : memref<32x32xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM is not inside a gpu.launch; map the block loop with gpu.map_forall_to_blocks first}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @on_tensors(%a: tensor<32x64xbf16>, %b: tensor<32x64xbf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-note @below {{target op}}
  %r = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
      ins(%a, %b : tensor<32x64xbf16>, tensor<32x64xbf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM must be bufferized first (it works on tensors)}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_linalg(%c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note @below {{target op}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the target is not a linalg op}}
    %loop = transform.vibegemm.gemm_to_mma_sync %launch : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_contraction(%c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the target is not a two-operand contraction}}
    %loop = transform.vibegemm.gemm_to_mma_sync %fill : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Two reduction dimensions: not one M, N and K.
#mA = affine_map<(m, n, k0, k1) -> (m, k0, k1)>
#mB = affine_map<(m, n, k0, k1) -> (n, k0, k1)>
#mC = affine_map<(m, n, k0, k1) -> (m, n)>
func.func @two_k(%a: memref<32x2x32xbf16>, %b: memref<32x2x32xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
        ins(%a, %b : memref<32x2x32xbf16>, memref<32x2x32xbf16>) outs(%c : memref<32x32xf32>) {
    ^bb0(%x: bf16, %y: bf16, %o: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %o, %p : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the contraction must have exactly one M, N and K dimension}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @batch_not_tiled(%a: memref<2x32x64xbf16>, %b: memref<2x64x32xbf16>, %c: memref<2x32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.batch_matmul ins(%a, %b : memref<2x32x64xbf16>, memref<2x64x32xbf16>) outs(%c : memref<2x32x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{batch dimensions must be tiled to 1 first}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The batch dimension innermost in A: neither K nor M is contiguous.
#mA = affine_map<(b, m, n, k) -> (m, k, b)>
#mB = affine_map<(b, m, n, k) -> (b, n, k)>
#mC = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batch_innermost(%a: memref<32x64x1xbf16>, %b: memref<1x32x64xbf16>, %c: memref<1x32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%a, %b : memref<32x64x1xbf16>, memref<1x32x64xbf16>) outs(%c : memref<1x32x32xf32>) {
    ^bb0(%x: bf16, %y: bf16, %o: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %o, %p : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{an operand's innermost dimension is neither K nor M/N}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The tile's M extent comes from a function argument: nothing bounds it.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @unbounded(%a: memref<?x64xbf16>, %b: memref<32x64xbf16>, %c: memref<?x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<?x64xbf16>, memref<32x64xbf16>) outs(%c : memref<?x32xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot bound the block tile's extent statically}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// block_k = 16 with a 32-row tile: 32 * 16 / 8 = 64 copies for 128 threads.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @uneven_copies(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
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
    // expected-error @below {{a 32x16 shared tile does not split into 16-byte copies evenly over 128 threads}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {block_k = 16} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// One warp over a 128x128 tile: 8 x 16 fragments of 4 accumulators each.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @too_many_registers(%a: memref<128x64xbf16>, %b: memref<128x64xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<128x64xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{a 128x128 warp tile needs 512 accumulator registers per thread (at most 256)}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {warps = array<i64: 1, 1>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The launch already runs 128 threads (mapped before this op).
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @launch_has_threads(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
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
    // expected-error @below {{the enclosing gpu.launch already has threads; apply this before mapping anything to threads}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @launch_has_smem(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %smem = arith.constant 1024 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %smem {
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
    // expected-error @below {{the enclosing gpu.launch already uses dynamic shared memory}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A copy reads the block-local accumulator: only elementwise generics can
// run on the registers.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @copy_consumer(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%acc : memref<32x32xf32>)
    memref.copy %acc, %c : memref<32x32xf32> to memref<32x32xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'memref.copy' reads the accumulator and is not an elementwise linalg.generic}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A row sum of the accumulator has a reduction loop.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @reduce_consumer(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %sum: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%acc : memref<32x32xf32>)
    linalg.reduce ins(%acc : memref<32x32xf32>) outs(%sum : memref<32xf32>) dimensions = [1]
      (%x: f32, %s: f32) {
        %r = arith.addf %x, %s : f32
        linalg.yield %r : f32
      }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'linalg.reduce' reads the accumulator and is not an elementwise linalg.generic}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A linalg.generic with a reduction iterator is not elementwise either.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#rows = affine_map<(m, n) -> (m)>
func.func @reduction_generic(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %sum: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%acc : memref<32x32xf32>)
    linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%acc : memref<32x32xf32>) outs(%sum : memref<32xf32>) {
    ^bb0(%x: f32, %s: f32):
      %r = arith.addf %x, %s : f32
      linalg.yield %r : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'linalg.generic' reads the accumulator and is not an elementwise linalg.generic}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The epilogue reads the accumulator transposed.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#t = affine_map<(m, n) -> (n, m)>
func.func @transposed_epilogue(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %out: memref<32x32xbf16>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%acc : memref<32x32xf32>)
    linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<32x32xf32>) outs(%out : memref<32x32xbf16>) {
    ^bb0(%x: f32, %o: bf16):
      %r = arith.truncf %x : f32 to bf16
      linalg.yield %r : bf16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{an epilogue reads or writes the accumulator tile through a non-identity map}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The epilogue updates the accumulator in place.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @in_place_epilogue(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %c: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%c : memref<32x32xf32>)
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%c : memref<32x32xf32>) {
    ^bb0(%o: f32):
      %r = arith.maximumf %o, %zero : f32
      linalg.yield %r : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{an epilogue writes into the accumulator in place}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A bias read at a shifted column.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#shifted = affine_map<(m, n) -> (n + 1)>
func.func @shifted_bias(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %bias: memref<33xf32>, %out: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%acc : memref<32x32xf32>)
    linalg.generic {indexing_maps = [#id, #shifted, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %bias : memref<32x32xf32>, memref<33xf32>) outs(%out : memref<32x32xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %r = arith.addf %x, %y : f32
      linalg.yield %r : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{an epilogue operand is indexed by a non-trivial expression}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The block-local accumulator is written before the GEMM by something
// other than its fill.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @accumulator_used_elsewhere(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>, %init: memref<32x32xf32>, %out: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<32x32xf32>
    memref.copy %init, %acc : memref<32x32xf32> to memref<32x32xf32>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<32x64xbf16>, memref<32x64xbf16>) outs(%acc : memref<32x32xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<32x32xf32>) outs(%out : memref<32x32xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the accumulator tile is also used by 'memref.copy'}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op warps must be two positive counts [wm, wn]}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {warps = array<i64: 2>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op warps must be two positive counts [wm, wn]}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {warps = array<i64: 0, 4>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op at most 32 warps (1024 threads) per block}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {warps = array<i64: 8, 8>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op block_k must be a positive multiple of 16}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {block_k = 24} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op block_k must be a positive multiple of 16}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {block_k = 0} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op stages must be between 2 and 8}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {stages = 1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op stages must be between 2 and 8}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {stages = 9} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A ring larger than an SM's shared memory is refused.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @shared_memory_too_large(%a: memref<128x1024xbf16>, %b: memref<128x1024xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<128x1024xbf16>, memref<128x1024xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the 8-stage ring needs 557056 bytes of shared memory (at most 232448 on sm_90a)}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {block_k = 128, stages = 8} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_mma_sync' op f32_precision must be "tf32" or "3xtf32"}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {f32_precision = "bf16x3"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The dispatch's target sets the limit: 163 KiB on sm_80, where the same
// ring would fit sm_90's 227 KiB.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @shared_memory_of_sm80(%a: memref<128x1024xbf16>, %b: memref<128x1024xbf16>, %c: memref<128x128xf32>)
    attributes {vibegemm.target = "sm_80"} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%a, %b : memref<128x1024xbf16>, memref<128x1024xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{on sm_80)}}
    %loop = transform.vibegemm.gemm_to_mma_sync %mm {block_k = 64, stages = 6} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
