// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-4" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX

// Named linalg.broadcast and linalg.map as the GEMM's epilogue, and a
// linalg.reduce of its result (a generic dispatch): two results, each
// checked on the CPU against the input as written.
// CHECK: ok
// CHECK-NEXT: 1
// CHECK: ok
// CHECK-NEXT: 1
// PTX: gpu.binary @
func.func @named2(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %bias: tensor<48xf32>) -> (tensor<64x48xf32>, tensor<64xf32>) {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %eb = tensor.empty() : tensor<64x48xf32>
  %bb = linalg.broadcast ins(%bias : tensor<48xf32>) outs(%eb : tensor<64x48xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<64x48xf32>
  %s = linalg.map { arith.addf } ins(%mm, %bb : tensor<64x48xf32>, tensor<64x48xf32>) outs(%e2 : tensor<64x48xf32>)
  %er = tensor.empty() : tensor<64xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce { arith.addf } ins(%s : tensor<64x48xf32>) outs(%fr : tensor<64xf32>) dimensions = [1]
  return %s, %r : tensor<64x48xf32>, tensor<64xf32>
}
