// Upstream MLIR Transform-dialect tutorial, Chapter 1, payload function
// @fc_relu: a fully-connected layer + ReLU written directly in linalg:
//   matmul into a function argument (%output used as outs, i.e. it
//   accumulates into whatever %output holds), elementwise add of a full-size
//   bias, then elementwise max with a scalar 0.0 (ReLU). All three ops write
//   into the SAME %output argument.
//
// Source:   https://github.com/llvm/llvm-project
//           commit c67ca2c541204680049a81d123220b7cc6f2e95f
//           mlir/test/Examples/transform/Ch1/sequence.mlir
//           (same payload in Ch1/invalidation-1.mlir @ f81939d0ec4f and in
//            mlir/docs/Tutorials/transform/Ch1.md)
// Changes:
//   - transform.named_sequence / @microkernel declaration / RUN+CHECK lines
//     dropped; only the payload function is kept.
//   - linalg.elemwise_binary {fun = #linalg.binary_fn<add|max_signed>} ->
//     linalg.elementwise kind=#linalg.elementwise_kind<add|max_signed>:
//     elemwise_binary was removed from upstream MLIR (it no longer parses in
//     mlir-opt-22); this is the form the current upstream tutorial text
//     uses, including the explicit indexing_maps with a () map for the
//     scalar %c0f operand of the max.
//   - sizes shrunk 512x512x512 -> 256x256x256 (tile sizes used by the
//     tutorial, [8, 32] and [4, 4], still divide evenly).
//
// Pattern notes: no fill - the matmul accumulates into an argument; outs
// aliasing (the same %output tensor is the init of three consecutive ops);
// bias is a full MxN tensor (no broadcast); scalar (non-tensor) operand of an
// elementwise op with a 0-d affine map; named elementwise ops instead of
// linalg.generic.
//
// FRONTEND-SOURCE: llvm/llvm-project@c67ca2c541204680049a81d123220b7cc6f2e95f:mlir/test/Examples/transform/Ch1/sequence.mlir
//
// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4 input-scale=1.0" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX
// The compiled function against the input as written, lowered naively
// on the CPU (deterministic inputs; tolerance 1e-4).
// CPU: ok
// CPU-NEXT: 1
// CPU-NOT: ok
// PTX: gpu.binary @


// Original function to optimize.
func.func @fc_relu(%lhs: tensor<256x256xf32>, %rhs: tensor<256x256xf32>,
                   %bias: tensor<256x256xf32>, %output: tensor<256x256xf32>)
                   -> tensor<256x256xf32> {
  // Matrix-matrix multiplication.
  %matmul = linalg.matmul ins(%lhs, %rhs: tensor<256x256xf32>, tensor<256x256xf32>)
                          outs(%output: tensor<256x256xf32>) -> tensor<256x256xf32>

  // Elementwise addition.
  %biased = linalg.elementwise kind=#linalg.elementwise_kind<add>
    ins(%matmul, %bias : tensor<256x256xf32>, tensor<256x256xf32>)
    outs(%output : tensor<256x256xf32>) -> tensor<256x256xf32>

  // Elementwise max with 0 (ReLU).
  %c0f = arith.constant 0.0 : f32
  %relued = linalg.elementwise kind=#linalg.elementwise_kind<max_signed>
    indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
    ins(%biased, %c0f : tensor<256x256xf32>, f32)
    outs(%output : tensor<256x256xf32>) -> tensor<256x256xf32>
  func.return %relued : tensor<256x256xf32>
}
