// Diagnostics of transform.vibegemm.gemm_to_wgmma: the op's verifier, and
// the silenceable failures that leave the payload unchanged, each with a
// "target op" note on the rejected GEMM.

// RUN: vibegemm-opt %s --transform-interpreter --split-input-file --verify-diagnostics

// f32 operands without f32_precision: TF32 is never taken silently.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f32_operands(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{f32 operands take wgmma only with f32_precision = "tf32" (which changes accuracy; gemm_to_ffma keeps f32 accuracy)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The GEMM must already be inside a gpu.launch.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @no_launch(%a: memref<128x128xbf16>, %b: memref<128x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note @below {{target op}}
  linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%a, %b : memref<128x128xbf16>, memref<128x128xbf16>) outs(%c : memref<128x128xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the GEMM is not inside a gpu.launch; map the block loop with gpu.map_forall_to_blocks first}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A batch dimension must be tiled to 1: each block reads one matrix.
#mA = affine_map<(b, m, n, k) -> (b, m, k)>
#mB = affine_map<(b, m, n, k) -> (b, k, n)>
#mC = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched(%a: memref<2x128x128xbf16>, %b: memref<2x128x128xbf16>, %c: memref<2x128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.batch_matmul ins(%a, %b : memref<2x128x128xbf16>, memref<2x128x128xbf16>) outs(%c : memref<2x128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{batch dimensions must be tiled to 1 first}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Rows of 100 bf16 (200 bytes) break TMA's 16-byte stride rule.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @unaligned_rows(%a: memref<128x100xbf16>, %b: memref<100x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x100xbf16>, memref<100x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{rows of 100 elements are not a multiple of 16 bytes, as TMA needs}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A 128x512 tile exceeds TMA boxes and wgmma's N.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @tile_too_large(%a: memref<128x64xbf16>, %b: memref<64x512xbf16>, %c: memref<128x512xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x512xbf16>) outs(%c : memref<128x512xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{a 128x512 block tile is larger than TMA boxes and wgmma allow (256x256)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// One consumer cannot hold a 128x256 f32 accumulator.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @accumulator_too_large(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>, %c: memref<128x256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x256xbf16>) outs(%c : memref<128x256xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{each consumer warpgroup would hold a 128x256 accumulator, 256 registers per thread (at most 128); add consumers}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Three consumers' 512 threads start with 128 registers each, and ptxas
// compiles the kernel within them (setmaxnreg notwithstanding): 64x256
// slabs of 128 accumulators do not fit (ptxas C7602 asked for 154).
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @three_consumers_too_few_registers(%a: memref<192x64xbf16>, %b: memref<64x256xbf16>, %c: memref<192x256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<192x64xbf16>, memref<64x256xbf16>) outs(%c : memref<192x256xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{3 consumer warpgroups (512 threads) start with 128 registers a thread, and ptxas compiles the kernel within them: a 64x256 accumulator (128 registers) and its addressing need about 154; take fewer consumers or a narrower block tile}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {consumers = 3, stages = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Eight 48 KiB stages do not fit in 227 KiB.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @ring_too_large(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>, %c: memref<128x256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x256xbf16>) outs(%c : memref<128x256xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the 8-stage ring needs 394240 bytes of shared memory (at most 232448 on sm_90a)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {stages = 8, consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The launch must not run threads yet.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @has_threads(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  %t = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %t, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the enclosing gpu.launch already has threads; apply this before mapping anything to threads}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A zero-padded copy counts as ending at K only when its data does: this
// one holds 120 columns of data, so columns 100..119 past the GEMM's K are
// not zeros.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @padded_data_past_k(%b: memref<100x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  %pad = memref.alloc() {vibegemm.zero_padded = 120 : i64} : memref<128x128xbf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %pad[0, 0] [128, 100] [1, 1] : memref<128x128xbf16> to memref<128x100xbf16, strided<[128, 1]>>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %b : memref<128x100xbf16, strided<[128, 1]>>, memref<100x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the block tile must span the whole K of its operands}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The tile's K must be the whole K of the operands (split-K uses mma.sync).
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @partial_k(%a: memref<128x256xbf16>, %b: memref<256x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %a[0, 0] [128, 128] [1, 1] : memref<128x256xbf16> to memref<128x128xbf16, strided<[256, 1]>>
    %sb = memref.subview %b[0, 0] [128, 128] [1, 1] : memref<256x128xbf16> to memref<128x128xbf16, strided<[128, 1]>>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%sa, %sb : memref<128x128xbf16, strided<[256, 1]>>, memref<128x128xbf16, strided<[128, 1]>>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the block tile must span the whole K of its operands}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// TMA reads whole buffers from outside the kernel, not block-local ones.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @local_operands(%c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<128x64xbf16>
    %b = memref.alloc() : memref<64x128xbf16>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{TMA operands must view whole row-major buffers (only their rows of run-time count) defined outside the gpu.launch}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Verifier: a ring needs at least two stages.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @one_stage(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_wgmma' op stages must be between 2 and 8}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {stages = 1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Verifier: at most three consumer warpgroups.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @four_consumers(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.vibegemm.gemm_to_wgmma' op consumers must be 1, 2 or 3 warpgroups}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {consumers = 4} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Split-K chunks of 96: the second K-tile of a split would read into the
// next split's chunk (TMA zero-fills only past the buffer).
#mA = affine_map<(s, m, n, k) -> (m, s, k)>
#mB = affine_map<(s, m, n, k) -> (s, k, n)>
#mC = affine_map<(s, m, n, k) -> (s, m, n)>
func.func @split_chunk_not_k_tiles(%a: memref<128x384xbf16>, %b: memref<384x128xbf16>, %partial: memref<4x128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ea = memref.expand_shape %a [[0], [1, 2]] output_shape [128, 4, 96] : memref<128x384xbf16> into memref<128x4x96xbf16>
  %eb = memref.expand_shape %b [[0, 1], [2]] output_shape [4, 96, 128] : memref<384x128xbf16> into memref<4x96x128xbf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c4)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %ea[0, %bz, 0] [128, 1, 96] [1, 1, 1] : memref<128x4x96xbf16> to memref<128x1x96xbf16, strided<[384, 96, 1], offset: ?>>
    %sb = memref.subview %eb[%bz, 0, 0] [1, 96, 128] [1, 1, 1] : memref<4x96x128xbf16> to memref<1x96x128xbf16, strided<[12288, 128, 1], offset: ?>>
    %sc = memref.subview %partial[%bz, 0, 0] [1, 128, 128] [1, 1, 1] : memref<4x128x128xf32> to memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>
    // expected-note @below {{target op}}
    linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%sa, %sb : memref<128x1x96xbf16, strided<[384, 96, 1], offset: ?>>, memref<1x96x128xbf16, strided<[12288, 128, 1], offset: ?>>)
        outs(%sc : memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>) attrs = {vibegemm.split_k} {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match attributes{vibegemm.split_k} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{split-K chunks of 96 are not a multiple of the 64-wide K-tiles}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// TF32 wgmma reads B only K-major: B stored [K, N] is refused.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @tf32_nn(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{TF32 wgmma reads both operands K-major: A stored [M, K] and B stored [N, K] (x * W^T); other layouts take gemm_to_mma_sync {f32_precision = "tf32"}}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {f32_precision = "tf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 3xTF32 runs on mma.sync only.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @tf32x3(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{3xtf32 runs on gemm_to_mma_sync only}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {f32_precision = "3xtf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f32_precision on 16-bit operands.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @tf32_bf16(%a: memref<128x128xbf16>, %b: memref<128x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xbf16>, memref<128x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{f32_precision applies to f32 operands only}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {f32_precision = "tf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{f32_precision must be "tf32" or "3xtf32"}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {f32_precision = "fp8"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{persistent_blocks must not be negative}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = -1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{ping_pong alternates the tiles of a persistent kernel's two consumers; it needs persistent_blocks and consumers = 2}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {ping_pong, consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{ping_pong alternates the tiles of a persistent kernel's two consumers; it needs persistent_blocks and consumers = 2}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {ping_pong, persistent_blocks = 132} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A persistent kernel needs to know the tile count: a grid of run-time size
// is refused.
func.func @persistent_dynamic_grid(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>, %blocks: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{a persistent kernel needs a launch grid of constant size}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The consumers would run the body's other stores once per tile, and the
// producer's threads never: refused.
func.func @persistent_side_effect(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>, %flag: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %flag[%c0] : memref<1xf32>
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{a persistent kernel runs the launch body once per tile, and 'memref.store' in it has side effects}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The consumers' staging tiles sit beside the ring: four stages of 128x256
// no longer fit.
func.func @persistent_ring_too_deep(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>, %c: memref<128x256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x256xbf16>) outs(%c : memref<128x256xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the 4-stage ring needs 267264 bytes of shared memory (at most 232448 on sm_90a)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {consumers = 2, stages = 4, persistent_blocks = 132} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Clusters are pairs of blocks along y.
func.func @cluster_rows_three(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cluster_rows must be 1 or 2}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A grid of one row of blocks has no pairs along y.
func.func @cluster_odd_grid(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{clusters of 2 rows need a constant grid y that is a multiple of 2}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Blocks grouped before the rewrite: group_blocks computes the column from
// both block ids, so the two blocks of a cluster would read different B
// tiles.
func.func @cluster_grouped_first(%a: memref<512x64xbf16>, %b: memref<64x512xbf16>, %c: memref<512x512xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [128, 64] [1, 1] : memref<512x64xbf16> to memref<128x64xbf16, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[0, %n0] [64, 128] [1, 1] : memref<64x512xbf16> to memref<64x128xbf16, strided<[512, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [128, 128] [1, 1] : memref<512x512xf32> to memref<128x128xf32, strided<[512, 1], offset: ?>>
    // expected-note @below {{target op}}
    linalg.matmul ins(%sa, %sb : memref<128x64xbf16, strided<[64, 1], offset: ?>>, memref<64x128xbf16, strided<[512, 1], offset: ?>>) outs(%sc : memref<128x128xf32, strided<[512, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %launch = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.vibegemm.group_blocks %launch {group = 2} : !transform.any_op
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{B's tile origin depends on the block's y id, so the blocks of a cluster would not share B (apply group_blocks after gemm_to_wgmma)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// B stored [K, N] moves in 64-column boxes; a 64-column tile has one.
func.func @cluster_half_box(%a: memref<128x64xbf16>, %b: memref<64x64xbf16>, %c: memref<128x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x64xbf16>) outs(%c : memref<128x64xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{B stored [K, N] is loaded in 64-column boxes: a 64-column tile does not split into 2 halves of whole boxes}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {cluster_rows = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// group_rows orders a persistent kernel's tiles only.
func.func @group_rows_not_persistent(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{group_rows orders a persistent kernel's tiles; other launches take transform.vibegemm.group_blocks}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {group_rows = 8} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_store is the persistent kernel's epilogue; it needs persistent_blocks}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The TMA epilogue stores one output: an f32 GEMM result kept beside its
// bf16 copy is two.
#id = affine_map<(m, n) -> (m, n)>
func.func @tma_store_two_outputs(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>, %d: memref<128x128xbf16>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%c : memref<128x128xf32>) outs(%d : memref<128x128xbf16>) {
    ^bb0(%v: f32, %o: bf16):
      %t = arith.truncf %v : f32 to bf16
      linalg.yield %t : bf16
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_store writes one output; this epilogue writes 2 buffers}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// TMA addresses rows in multiples of 16 bytes: a 128x128 tile of an output
// whose rows are 129 f32 (516 bytes) is refused.
func.func @tma_store_odd_rows(%a: memref<128x64xbf16>, %b: memref<128x64xbf16>, %c: memref<128x129xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sc = memref.subview %c[0, 0] [128, 128] [1, 1] : memref<128x129xf32> to memref<128x128xf32, strided<[129, 1]>>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%a, %b : memref<128x64xbf16>, memref<128x64xbf16>) outs(%sc : memref<128x128xf32, strided<[129, 1]>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{output rows of 129 elements are not a multiple of 16 bytes, as TMA needs}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// TMA clips a box only at the buffer's edge: a ragged last tile that ends
// at row 500 of a 512-row buffer would have its boxes write rows 500-511.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @tma_store_ragged(%a: memref<500x128xbf16>, %b: memref<480x128xbf16>, %r: memref<500x480xbf16>, %c: memref<512x480xbf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idx = gpu.block_id x
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%idy]
    %n0 = affine.apply affine_map<()[s0] -> (s0 * 256)>()[%idx]
    %ms = affine.min affine_map<()[s0] -> (128, s0 * -128 + 500)>()[%idy]
    %ns = affine.min affine_map<()[s0] -> (256, s0 * -256 + 480)>()[%idx]
    %sa = memref.subview %a[%m0, 0] [%ms, 128] [1, 1] : memref<500x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
    %sb = memref.subview %b[%n0, 0] [%ns, 128] [1, 1] : memref<480x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
    %sr = memref.subview %r[%m0, %n0] [%ms, %ns] [1, 1] : memref<500x480xbf16> to memref<?x?xbf16, strided<[480, 1], offset: ?>>
    %sc = memref.subview %c[%m0, %n0] [%ms, %ns] [1, 1] : memref<512x480xbf16> to memref<?x?xbf16, strided<[480, 1], offset: ?>>
    %acc = memref.alloc(%ms, %ns) : memref<?x?xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<?x?xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mBt, #mC]
        ins(%sa, %sb : memref<?x128xbf16, strided<[128, 1], offset: ?>>, memref<?x128xbf16, strided<[128, 1], offset: ?>>)
        outs(%acc : memref<?x?xf32>)
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %sr : memref<?x?xf32>, memref<?x?xbf16, strided<[480, 1], offset: ?>>) outs(%sc : memref<?x?xbf16, strided<[480, 1], offset: ?>>) {
    ^bb0(%v: f32, %res: bf16, %o: bf16):
      %e = arith.extf %res : bf16 to f32
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<?x?xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_store stores whole 128x256 tiles, or ragged ones ending at the output's edge (min(block, extent - offset)); this output tile's rows are neither}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 3, consumers = 2, stages = 3, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A 64-row tile under two consumers runs in a 128-row block: a TMA store of
// the second consumer's box would write the next tile's rows.
func.func @tma_store_narrow_tile(%a: memref<128x64xbf16>, %b: memref<128x64xbf16>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %idy = gpu.block_id y
    %m0 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%idy]
    %sa = memref.subview %a[%m0, 0] [64, 64] [1, 1] : memref<128x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%m0, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1], offset: ?>>
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%sa, %b : memref<64x64xbf16, strided<[64, 1], offset: ?>>, memref<128x64xbf16>) outs(%sc : memref<64x128xf32, strided<[128, 1], offset: ?>>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_store stores whole 128x128 tiles, or ragged ones ending at the output's edge (min(block, extent - offset)); this output tile's rows are neither}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, consumers = 2, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Split-K's partials go to the combine through the staging tile, not TMA
// stores.
#mA = affine_map<(s, m, n, k) -> (m, s, k)>
#mB = affine_map<(s, m, n, k) -> (s, k, n)>
#mC = affine_map<(s, m, n, k) -> (s, m, n)>
func.func @tma_store_split_k(%a: memref<128x512xbf16>, %b: memref<512x128xbf16>, %partial: memref<4x128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ea = memref.expand_shape %a [[0], [1, 2]] output_shape [128, 4, 128] : memref<128x512xbf16> into memref<128x4x128xbf16>
  %eb = memref.expand_shape %b [[0, 1], [2]] output_shape [4, 128, 128] : memref<512x128xbf16> into memref<4x128x128xbf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c4)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sa = memref.subview %ea[0, %bz, 0] [128, 1, 128] [1, 1, 1] : memref<128x4x128xbf16> to memref<128x1x128xbf16, strided<[512, 128, 1], offset: ?>>
    %sb = memref.subview %eb[%bz, 0, 0] [1, 128, 128] [1, 1, 1] : memref<4x128x128xbf16> to memref<1x128x128xbf16, strided<[16384, 128, 1], offset: ?>>
    %sc = memref.subview %partial[%bz, 0, 0] [1, 128, 128] [1, 1, 1] : memref<4x128x128xf32> to memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>
    // expected-note @below {{target op}}
    linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%sa, %sb : memref<128x1x128xbf16, strided<[512, 128, 1], offset: ?>>, memref<1x128x128xbf16, strided<[16384, 128, 1], offset: ?>>)
        outs(%sc : memref<1x128x128xf32, strided<[16384, 128, 1], offset: ?>>) attrs = {vibegemm.split_k} {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match attributes{vibegemm.split_k} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_store writes the GEMM's output; split-K's partials finish through their staging tile}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, tma_store} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_load_residual loads into the TMA store's staging tile; it needs tma_store}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, tma_load_residual} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// tma_load_residual: a residual under 4 stages would take two passes.

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @residual_two_passes(%a: memref<128x256xbf16>, %b: memref<256x256xbf16>, %r: memref<128x256xbf16>, %c: memref<128x256xbf16>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x256xbf16>, memref<256x256xbf16>) outs(%acc : memref<128x256xf32>)
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %r : memref<128x256xf32>, memref<128x256xbf16>) outs(%c : memref<128x256xbf16>) {
    ^bb0(%v: f32, %rv: bf16, %o: bf16):
      %e = arith.extf %rv : bf16 to f32
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<128x256xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_load_residual stages the whole 128x256 tile at once; beside the 4-stage ring there is room for 128 columns (use fewer stages)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, consumers = 2, tma_store, tma_load_residual} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// tma_load_residual: the epilogue's only input is a bias row, not shaped as
// the output.

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @no_residual(%a: memref<128x256xbf16>, %b: memref<256x256xbf16>, %bias: memref<256xbf16>, %c: memref<128x256xbf16>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %acc = memref.alloc() : memref<128x256xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x256xbf16>, memref<256x256xbf16>) outs(%acc : memref<128x256xf32>)
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %bias : memref<128x256xf32>, memref<256xbf16>) outs(%c : memref<128x256xbf16>) {
    ^bb0(%v: f32, %bv: bf16, %o: bf16):
      %e = arith.extf %bv : bf16 to f32
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %acc : memref<128x256xf32>
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tma_load_residual found no epilogue input indexed and typed as the output (bf16)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm {persistent_blocks = 132, consumers = 2, stages = 3, tma_store, tma_load_residual} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// FP8 wgmma reads both operands K-major only: B stored [K, N] is refused.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f8_b_kn(%a: memref<128x128xf8E4M3FN>, %b: memref<128x128xf8E4M3FN>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xf8E4M3FN>, memref<128x128xf8E4M3FN>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{FP8 wgmma reads both operands K-major: A stored [M, K] and B stored [N, K] (x * W^T, as FP8 weights are kept); transpose the other layouts before the GEMM}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// FP8 operands of two formats are refused.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @f8_mixed(%a: memref<128x128xf8E4M3FN>, %b: memref<128x128xf8E5M2>, %c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xf8E4M3FN>, memref<128x128xf8E5M2>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{FP8 operands must share one format (both f8E4M3FN or both f8E5M2)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A dispatch scheduled for portable sm_90 PTX cannot use wgmma.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @sm90_without_wgmma(%a: memref<128x128xbf16>, %b: memref<128x128xbf16>, %c: memref<128x128xf32>)
    attributes {vibegemm.target = "sm_90"} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{target op}}
    linalg.matmul indexing_maps = [#mA, #mB, #mC]
        ins(%a, %b : memref<128x128xbf16>, memref<128x128xbf16>) outs(%c : memref<128x128xf32>)
    gpu.terminator
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{wgmma needs sm_90a; the dispatch is scheduled for sm_90 (vibegemm.target)}}
    %loop = transform.vibegemm.gemm_to_wgmma %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
