// TOSA -> linalg, lowered with upstream MLIR's own TOSA conversion passes:
// a 2-layer fully-connected MLP  y = (relu(x W1^T + b1)) W2^T + b2
// (x [16,64], W1 [128,64], W2 [32,128]) written the way TOSA 1.0 expresses
// fully_connected now that tosa.fully_connected is gone from the spec:
// tosa.reshape to rank 3, tosa.transpose of the [out,in] weight, batch-1
// tosa.matmul, rank-3 bias add, tosa.clamp (ReLU), reshape back to rank 2.
//
// Source:   TOSA source written for this corpus (below), TOSA 1.0 syntax as
//           in upstream llvm/llvm-project mlir/test/Conversion/TosaToLinalg
//           tests (tosa.const_shape / !tosa.shape, zero-point operands on
//           tosa.matmul). The linalg below is the verbatim output of stock
//           mlir-opt-22 (Debian LLVM 22.1.8):
//   mlir-opt-22 tosa-mlp.tosa.mlir --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),canonicalize)"
//           (--tosa-to-linalg-pipeline also exists in 22 but leaves
//            tosa.reshape / tosa.const_shape unconverted, so the explicit
//            pass list above is used.)
// Changes:  none to the generated output (only this header prepended).
//
// ---- TOSA source (input to the pipeline) ----
//   func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<32x128xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
//     %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
//     %s_x = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
//     %s_w1 = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
//     %s_b1 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
//     %s_w2 = tosa.const_shape {values = dense<[1, 128, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
//     %s_b2 = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
//     %s_out = tosa.const_shape {values = dense<[16, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
//     %x3 = tosa.reshape %x, %s_x : (tensor<16x64xf32>, !tosa.shape<3>) -> tensor<1x16x64xf32>
//     %w1t = tosa.transpose %w1 {perms = array<i32: 1, 0>} : (tensor<128x64xf32>) -> tensor<64x128xf32>
//     %w1t3 = tosa.reshape %w1t, %s_w1 : (tensor<64x128xf32>, !tosa.shape<3>) -> tensor<1x64x128xf32>
//     %mm1 = tosa.matmul %x3, %w1t3, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
//     %b13 = tosa.reshape %b1, %s_b1 : (tensor<128xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
//     %h = tosa.add %mm1, %b13 : (tensor<1x16x128xf32>, tensor<1x1x128xf32>) -> tensor<1x16x128xf32>
//     %r = tosa.clamp %h {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
//     %w2t = tosa.transpose %w2 {perms = array<i32: 1, 0>} : (tensor<32x128xf32>) -> tensor<128x32xf32>
//     %w2t3 = tosa.reshape %w2t, %s_w2 : (tensor<128x32xf32>, !tosa.shape<3>) -> tensor<1x128x32xf32>
//     %mm2 = tosa.matmul %r, %w2t3, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
//     %b23 = tosa.reshape %b2, %s_b2 : (tensor<32xf32>, !tosa.shape<3>) -> tensor<1x1x32xf32>
//     %y3 = tosa.add %mm2, %b23 : (tensor<1x16x32xf32>, tensor<1x1x32xf32>) -> tensor<1x16x32xf32>
//     %y = tosa.reshape %y3, %s_out : (tensor<1x16x32xf32>, !tosa.shape<2>) -> tensor<16x32xf32>
//     return %y : tensor<16x32xf32>
//   }
// ---- end TOSA source ----
//
// Pattern notes: named linalg.transpose of the weight; tensor.expand_shape
// to add the unit batch dim on input, weight and bias (and collapse_shape at
// the end); linalg.batch_matmul with batch 1 (first one takes an
// expand_shape'd argument, second one takes the clamp generic directly);
// bias map (d0, 0, d2); clamp with max = FLT_MAX as minimumf/maximumf.
//
// FRONTEND-SOURCE: llvm/llvm-project@llvmorg-22.1.8:mlir/lib/Conversion/TosaToLinalg (lowering by mlir-opt-22; TOSA source in header)
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


#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @mlp(%arg0: tensor<16x64xf32>, %arg1: tensor<128x64xf32>, %arg2: tensor<128xf32>, %arg3: tensor<32x128xf32>, %arg4: tensor<32xf32>) -> tensor<16x32xf32> {
    %cst = arith.constant 3.40282347E+38 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [1, 16, 64] : tensor<16x64xf32> into tensor<1x16x64xf32>
    %0 = tensor.empty() : tensor<64x128xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<128x64xf32>) outs(%0 : tensor<64x128xf32>) permutation = [1, 0] 
    %expanded_1 = tensor.expand_shape %transposed [[0, 1], [2]] output_shape [1, 64, 128] : tensor<64x128xf32> into tensor<1x64x128xf32>
    %1 = tensor.empty() : tensor<1x16x128xf32>
    %2 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
    %3 = linalg.batch_matmul ins(%expanded, %expanded_1 : tensor<1x16x64xf32>, tensor<1x64x128xf32>) outs(%2 : tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
    %expanded_2 = tensor.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 128] : tensor<128xf32> into tensor<1x1x128xf32>
    %4 = tensor.empty() : tensor<1x16x128xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %expanded_2 : tensor<1x16x128xf32>, tensor<1x1x128xf32>) outs(%4 : tensor<1x16x128xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %14 = arith.addf %in, %in_6 : f32
      linalg.yield %14 : f32
    } -> tensor<1x16x128xf32>
    %6 = tensor.empty() : tensor<1x16x128xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<1x16x128xf32>) outs(%6 : tensor<1x16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.minimumf %in, %cst : f32
      %15 = arith.maximumf %14, %cst_0 : f32
      linalg.yield %15 : f32
    } -> tensor<1x16x128xf32>
    %8 = tensor.empty() : tensor<128x32xf32>
    %transposed_3 = linalg.transpose ins(%arg3 : tensor<32x128xf32>) outs(%8 : tensor<128x32xf32>) permutation = [1, 0] 
    %expanded_4 = tensor.expand_shape %transposed_3 [[0, 1], [2]] output_shape [1, 128, 32] : tensor<128x32xf32> into tensor<1x128x32xf32>
    %9 = tensor.empty() : tensor<1x16x32xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
    %11 = linalg.batch_matmul ins(%7, %expanded_4 : tensor<1x16x128xf32>, tensor<1x128x32xf32>) outs(%10 : tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
    %expanded_5 = tensor.expand_shape %arg4 [[0, 1, 2]] output_shape [1, 1, 32] : tensor<32xf32> into tensor<1x1x32xf32>
    %12 = tensor.empty() : tensor<1x16x32xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %expanded_5 : tensor<1x16x32xf32>, tensor<1x1x32xf32>) outs(%12 : tensor<1x16x32xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %14 = arith.addf %in, %in_6 : f32
      linalg.yield %14 : f32
    } -> tensor<1x16x32xf32>
    %collapsed = tensor.collapse_shape %13 [[0, 1], [2]] : tensor<1x16x32xf32> into tensor<16x32xf32>
    return %collapsed : tensor<16x32xf32>
  }
}

