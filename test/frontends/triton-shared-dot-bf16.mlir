// triton-shared (microsoft/triton-shared, --triton-to-linalg): a Triton
// kernel doing  C = tl.dot(A, tl.trans(B), acc=C)  on 128x64 x (256x64)^T
// blocks in bf16, lowered to linalg on tensors.
//   A [128,64] bf16 (row-major), B loaded as [256,64] with strides [1, 256]
//   then tt.trans'd to [64,256], C [128,256] bf16 loaded and used as the
//   tt.dot accumulator, result stored back to C.
//
// Source:   https://github.com/microsoft/triton-shared
//           commit 1c203ca99e7ea6c364e02c9b0a8a73df948193f9
//           test/Conversion/TritonToLinalg/dot.mlir
//           (the Triton IR input is in that file; the linalg below is the
//           output it CHECKs for `triton-shared-opt --triton-to-linalg`,
//           written out with the SSA values the CHECK lines name)
// Changes:
//   - the memref boundary was cut: the three
//       memref.reinterpret_cast + memref.alloc + memref.copy +
//       bufferization.to_tensor ... restrict writable
//     loads became function arguments %0 : tensor<128x64xbf16> (A),
//     %1 : tensor<256x64xbf16> (B), %3 : tensor<128x256xbf16> (C) -- the
//     names the CHECK lines give the to_tensor results -- and the final
//       bufferization.materialize_in_destination %7 in writable <C memref>
//     became `return %7`. The kernel's unused i32 grid arguments dropped.
//   - everything between (transpose, fill, matmul, accumulate generic) is
//     as CHECKed, static 128x64x256 sizes kept.
//
// Pattern notes: named linalg.transpose of B (permutation [1, 0]); the dot's
// accumulator is NOT used as the matmul init: matmul goes into fill(0 : bf16)
// and the old C is added afterwards by a generic that uses the loaded C both
// as an input AND as its outs (in-place-style outs reuse); bf16 everywhere
// including the accumulator (tt.dot bf16 x bf16 -> bf16).
//
// FRONTEND-SOURCE: microsoft/triton-shared@1c203ca99e7ea6c364e02c9b0a8a73df948193f9:test/Conversion/TritonToLinalg/dot.mlir
//
// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="tolerance=2e-2 input-scale=0.25" --vibegemm-prepare \
// RUN:   --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e vibegemm_check_main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: vibegemm-opt %s --vibegemm-compile="target=sm_90a" | FileCheck %s --check-prefix=PTX
// The compiled function against the input as written, lowered naively
// on the CPU (deterministic inputs; tolerance 2e-2 relative: the input accumulates in f16/bf16 where vibegemm accumulates in f32).
// CPU: ok
// CPU-NEXT: 1
// CPU-NOT: ok
// PTX: gpu.binary @


#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @kernel(%0: tensor<128x64xbf16>, %1: tensor<256x64xbf16>, %3: tensor<128x256xbf16>) -> tensor<128x256xbf16> {
    %cst = arith.constant 0.000000e+00 : bf16
    %2 = tensor.empty() : tensor<64x256xbf16>
    %transposed = linalg.transpose ins(%1 : tensor<256x64xbf16>) outs(%2 : tensor<64x256xbf16>) permutation = [1, 0]
    %4 = tensor.empty() : tensor<128x256xbf16>
    %5 = linalg.fill ins(%cst : bf16) outs(%4 : tensor<128x256xbf16>) -> tensor<128x256xbf16>
    %6 = linalg.matmul ins(%0, %transposed : tensor<128x64xbf16>, tensor<64x256xbf16>) outs(%5 : tensor<128x256xbf16>) -> tensor<128x256xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %6 : tensor<128x256xbf16>, tensor<128x256xbf16>) outs(%3 : tensor<128x256xbf16>) {
    ^bb0(%in: bf16, %in_0: bf16, %out: bf16):
      %8 = arith.addf %in, %in_0 : bf16
      linalg.yield %8 : bf16
    } -> tensor<128x256xbf16>
    return %7 : tensor<128x256xbf16>
  }
}
