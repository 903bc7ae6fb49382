// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=0.5" | FileCheck %s

// The function stays; an untouched clone is the reference; the entry point
// feeds both the same inputs and prints the error per result.
// CHECK-LABEL: func.func @scale(
// CHECK-LABEL: func.func @scale_reference(
// CHECK-SAME: vibegemm.ignore
// CHECK-LABEL: func.func @vibegemm_check_main()
// CHECK-SAME: vibegemm.ignore
// CHECK: %[[X:.+]] = tensor.generate
// CHECK: call @scale(%[[X]])
// CHECK: call @scale_reference(%[[X]])
// CHECK: %[[TOL:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: vector.print str "max_rel_err\0A"
// CHECK: arith.cmpf olt, %{{.*}}, %[[TOL]] : f32
func.func @scale(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %r = arith.addf %x, %x : tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}
