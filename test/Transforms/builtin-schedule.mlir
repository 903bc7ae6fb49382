// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --split-input-file | FileCheck %s

// f32 GEMMs with M and N of at least 16 take the FFMA kernel through the
// block-tiled script: 256x256 gives 16 blocks of 64x64 with 4x4 outputs per
// thread (the largest tile that still fills the most SMs), K steps of 16.
// The dispatch records its target, whose limits its kernels then keep.
// CHECK-LABEL: func.func @gemm_d0(
//  CHECK-SAME:   vibegemm.schedule = @gemm_d0
//  CHECK-SAME:   vibegemm.target = "sm_90"
//       CHECK: module @__vibegemm_schedules attributes {transform.with_named_sequence}
//       CHECK:   transform.named_sequence @gemm_d0(%{{.+}}: !transform.any_op {transform.consumed})
//       CHECK:     transform.tune.knob<"block_m"> = 64 : i64 from options = [16, 32, 64, 128, 256]
//       CHECK:     transform.gpu.map_forall_to_blocks
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {thread_tile = array<i64: 4, 4>}
//   CHECK-NOT:     map_copy_to_threads
func.func @gemm(%a: tensor<256x64xf32>, %b: tensor<64x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// -----

// A 256x256 f32 GEMM with K = 65536 has four 128x128 tiles for 132 SMs:
// split-K by 64 (about two blocks per SM, 1024 of K each), 8x8 per thread,
// K steps of 32 in two stages, partial sums combined in a fixed order.
// CHECK-LABEL: transform.named_sequence @long_k_d0
//       CHECK:     transform.tune.knob<"block_m"> = 128
//       CHECK:     transform.structured.split_reduction %{{.*}} {split_factor = 64 : i64}
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {block_k = 32 : i64, stages = 2 : i64} :
func.func @long_k(%a: tensor<256x65536xf32>, %b: tensor<65536x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x65536xf32>, tensor<65536x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// -----

// Huge K over a 32x32 f32 output: too small for the 128x128 tile (16
// threads); the 32-row tile at 4x8 per thread, split 256 ways.
// CHECK-LABEL: transform.named_sequence @long_k_small_d0
//       CHECK:     transform.tune.knob<"block_m"> = 32
//       CHECK:     transform.structured.split_reduction %{{.*}} {split_factor = 256 : i64}
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {thread_tile = array<i64: 4, 8>}
func.func @long_k_small(%a: tensor<32x262144xf32>, %b: tensor<262144x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<32x262144xf32>, tensor<262144x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %c : tensor<32x32xf32>
}

// -----

// B's rows (1001 floats) are not 16-byte aligned: it is copied into a padded
// buffer first so the FFMA kernel stages it with 16-byte copies. A is read
// along K with 4-byte copies anyway, so it is left alone.
// CHECK-LABEL: transform.named_sequence @ragged_n_d0
//       CHECK:     transform.vibegemm.align_operand_rows %{{.*}} {operands = array<i64: 1>} : !transform.any_op
//  CHECK-NEXT:     transform.vibegemm.gemm_to_ffma
func.func @ragged_n(%a: tensor<1024x1024xf32>, %b: tensor<1024x1001xf32>) -> tensor<1024x1001xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1001xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1001xf32>) -> tensor<1024x1001xf32>
  %c = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1001xf32>) outs(%f : tensor<1024x1001xf32>) -> tensor<1024x1001xf32>
  return %c : tensor<1024x1001xf32>
}

// -----

// A stored [K, M] with M = 1001 runs along M as well: both are copied.
// CHECK-LABEL: transform.named_sequence @ragged_trans_a_d0
//       CHECK:     transform.vibegemm.align_operand_rows %{{.*}} : !transform.any_op
//  CHECK-NEXT:     transform.vibegemm.gemm_to_ffma
func.func @ragged_trans_a(%a: tensor<1024x1001xf32>, %b: tensor<1024x1001xf32>) -> tensor<1001x1001xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1001x1001xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1001x1001xf32>) -> tensor<1001x1001xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<1024x1001xf32>, tensor<1024x1001xf32>) outs(%f : tensor<1001x1001xf32>) -> tensor<1001x1001xf32>
  return %c : tensor<1001x1001xf32>
}

// -----

// Too little work per element of B (M = 64) to pay for a copy of it.
// CHECK-LABEL: transform.named_sequence @ragged_n_short_d0
//   CHECK-NOT:     align_operand_rows
//       CHECK:     transform.vibegemm.gemm_to_ffma
func.func @ragged_n_short(%a: tensor<64x1024xf32>, %b: tensor<1024x1001xf32>) -> tensor<64x1001xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1001xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1001xf32>) -> tensor<64x1001xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x1001xf32>) outs(%f : tensor<64x1001xf32>) -> tensor<64x1001xf32>
  return %c : tensor<64x1001xf32>
}

// -----

// Narrower than 16 columns: tiles that divide the problem take the staged
// (shared-memory) SIMT schedule; every tile size is a knob.
// CHECK-LABEL: transform.named_sequence @skinny_d0
//   CHECK-DAG:     transform.tune.knob<"block_m"> = 64 : i64 from options = [4, 8, 16, 32, 64, 128, 256]
//   CHECK-DAG:     transform.tune.knob<"block_k">
//   CHECK-DAG:     transform.tune.knob<"thread_m"> = 4 : i64
//       CHECK:     transform.structured.gpu.map_copy_to_threads
//       CHECK:     transform.structured.bufferize_to_allocation {{.*}} {alloc_op = "memref.alloca", bufferize_destination_only, memory_space = 3 : i64}
//       CHECK:     transform.gpu.map_nested_forall_to_threads {{.*}} block_dims = [2, 16, 1]
//       CHECK:     transform.structured.hoist_redundant_vector_transfers
func.func @skinny(%a: tensor<256x64xf32>, %b: tensor<64x8xf32>) -> tensor<256x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x8xf32>) -> tensor<256x8xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x8xf32>) outs(%f : tensor<256x8xf32>) -> tensor<256x8xf32>
  return %c : tensor<256x8xf32>
}

// -----

// A ragged narrow shape smaller than one block tile takes the direct
// schedule, whose fixed thread grid shrinks per-thread tiles at the edges.
// CHECK-LABEL: transform.named_sequence @ragged_d0
//   CHECK-NOT:     map_copy_to_threads
//   CHECK-NOT:     gemm_to_ffma
//       CHECK:     transform.gpu.map_forall_to_blocks
func.func @ragged(%a: tensor<67x33xf32>, %b: tensor<33x9xf32>) -> tensor<67x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<67x9xf32>) -> tensor<67x9xf32>
  %c = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x9xf32>) outs(%f : tensor<67x9xf32>) -> tensor<67x9xf32>
  return %c : tensor<67x9xf32>
}

// -----

// Decode-like f32 (M = 16): 16x128 tiles, 4x8 outputs per thread (64
// threads), so 11008 columns still give 86 blocks.
// CHECK-LABEL: transform.named_sequence @decode_d0
//       CHECK:     transform.tune.knob<"block_m"> = 16
//       CHECK:     transform.tune.knob<"block_n"> = 128
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} {thread_tile = array<i64: 4, 8>}
func.func @decode(%a: tensor<16x4096xf32>, %b: tensor<4096x11008xf32>) -> tensor<16x11008xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x11008xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x4096xf32>, tensor<4096x11008xf32>) outs(%f : tensor<16x11008xf32>) -> tensor<16x11008xf32>
  return %c : tensor<16x11008xf32>
}

// -----

// Batched f32: one batch per block along z, 128x128 tiles with 8x8 per
// thread.
// CHECK-LABEL: transform.named_sequence @batched_d0
//       CHECK:     transform.structured.tile_using_forall %{{.*}} tile_sizes [1, %{{.*}}, %{{.*}}](mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>])
//       CHECK:     transform.vibegemm.gemm_to_ffma %{{.*}} :
func.func @batched(%a: tensor<64x256x128xf32>, %b: tensor<64x128x256xf32>) -> tensor<64x256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256x256xf32>) -> tensor<64x256x256xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<64x256x128xf32>, tensor<64x128x256xf32>) outs(%f : tensor<64x256x256xf32>) -> tensor<64x256x256xf32>
  return %c : tensor<64x256x256xf32>
}
