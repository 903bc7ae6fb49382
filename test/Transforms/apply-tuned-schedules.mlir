// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-apply-tuned-schedules="specs=%S/Inputs/small-spec.mlir" | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-apply-tuned-schedules="specs=%S/Inputs/small-spec.mlir target=sm_80" | FileCheck %s --check-prefix=OTHER-TARGET

// A dispatch whose signature the spec file knows gets the stored schedule,
// renamed after the dispatch, and says where it came from.
// CHECK-LABEL: func.func @small_d0(
//  CHECK-SAME:   vibegemm.schedule = @small_d0
//  CHECK-SAME:   vibegemm.schedule_source = "specs"
//       CHECK: module @__vibegemm_schedules
//       CHECK:   transform.named_sequence @small_d0(
//       CHECK:     transform.tune.knob<"block_k"> = 16

// Spec entries are per target: for sm_80 nothing is attached.
// OTHER-TARGET-LABEL: func.func @small_d0(
//   OTHER-TARGET-NOT:   vibegemm.schedule
//   OTHER-TARGET-NOT: module @__vibegemm_schedules

func.func @small(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%fill : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
