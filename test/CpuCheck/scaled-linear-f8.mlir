// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=1e-2" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule="target=sm_90a" | FileCheck %s --check-prefix=SCHEDULE

// An FP8 (e4m3) nn.Linear with per-tensor scales and a bf16 result, as
// torch._scaled_mm computes it. On sm_90a it takes the wgmma kernel; the CPU
// check runs the SIMT schedule every other target gets against the function
// as written, FP8 widened by vibegemm-widen-float8 in both (tolerance: the
// bf16 result's rounding).
// SCHEDULE: transform.vibegemm.gemm_to_wgmma
// CHECK: ok
// CHECK-NEXT: 1
func.func @scaled_linear(%x: tensor<128x128xf8E4M3FN>, %w: tensor<128x128xf8E4M3FN>,
                         %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<128x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %o = tensor.empty() : tensor<128x128xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %sx, %sw : tensor<128x128xf32>, tensor<f32>, tensor<f32>) outs(%o : tensor<128x128xbf16>) {
  ^bb0(%v: f32, %a: f32, %b: f32, %out: bf16):
    %s = arith.mulf %a, %b : f32
    %r = arith.mulf %v, %s : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
