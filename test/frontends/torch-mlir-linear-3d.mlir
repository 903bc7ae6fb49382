// torch-mlir (TorchScript path, torch_mlir.compile output_type
// "linalg-on-tensors"): nn.Linear applied to a 3-D input [B=1, S=512, D=128],
// as a 2-layer feed-forward block:  fc2(relu(fc1(x)))  (128 -> 256 -> 128;
// the Dropout is a no-op in eval mode and does not appear).
//
// Source:   https://github.com/UCLA-VAST/Stream-HLS
//           commit 5e20bcfbc20dc2fe8adfbc2c53bf71ef74b1aaf5
//           FPGA2025_Artificats/transformers/opt1/FeedForward/mlir/input/FeedForward.mlir
//           (model: examples/pymodels/transformers/FeedForward.py,
//            config embed_dim=128, ff_dim=256, input randTensor(1, 512, 128))
// Changes:
//   - the 4 weight/bias constants (arith.constant dense<"0x..."> hex blobs,
//     ~520 KB) were lifted to function arguments fc1_weight [256x128],
//     fc1_bias [256], fc2_weight [128x256], fc2_bias [128]; uses renamed.
//   - nothing else changed (real sizes kept: M=512, K=128, N=256).
//
// Pattern notes: nn.Linear on a 3-D input becomes
//   weight transpose (identity generic, maps (d0,d1)->(d1,d0))
//   + identity "broadcast" generic of the input with map (0, d1, d2)
//   + broadcast of the transposed weight to [1,K,N] (map (d1, d2))
//   + fill(0) + linalg.batch_matmul with batch 1
//   + bias generic with map (d2) and input map (0, d1, d2);
// ReLU is cmpf ugt + select. tensor.empty %2/%6 are reused as outs by several
// ops. ml_program global_seed.
//
// FRONTEND-SOURCE: UCLA-VAST/Stream-HLS@5e20bcfbc20dc2fe8adfbc2c53bf71ef74b1aaf5:FPGA2025_Artificats/transformers/opt1/FeedForward/mlir/input/FeedForward.mlir
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


#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d2)>
module attributes {torch.debug_module_name = "FeedForward"} {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @forward(%arg0: tensor<1x512x128xf32>, %fc1_weight: tensor<256x128xf32>, %fc1_bias: tensor<256xf32>, %fc2_weight: tensor<128x256xf32>, %fc2_bias: tensor<128xf32>) -> tensor<1x512x128xf32> {
    %cst_3 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<128x256xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%fc1_weight : tensor<256x128xf32>) outs(%0 : tensor<128x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<128x256xf32>
    %2 = tensor.empty() : tensor<1x512x128xf32>
    %3 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x512x128xf32>) outs(%2 : tensor<1x512x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x512x128xf32>
    %4 = tensor.empty() : tensor<1x128x256xf32>
    %5 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<128x256xf32>) outs(%4 : tensor<1x128x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x128x256xf32>
    %6 = tensor.empty() : tensor<1x512x256xf32>
    %7 = linalg.fill ins(%cst_3 : f32) outs(%6 : tensor<1x512x256xf32>) -> tensor<1x512x256xf32>
    %8 = linalg.batch_matmul ins(%3, %5 : tensor<1x512x128xf32>, tensor<1x128x256xf32>) outs(%7 : tensor<1x512x256xf32>) -> tensor<1x512x256xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %fc1_bias : tensor<1x512x256xf32>, tensor<256xf32>) outs(%6 : tensor<1x512x256xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %19 = arith.addf %in, %in_4 : f32
      linalg.yield %19 : f32
    } -> tensor<1x512x256xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<1x512x256xf32>) outs(%6 : tensor<1x512x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.cmpf ugt, %in, %cst_3 : f32
      %20 = arith.select %19, %in, %cst_3 : f32
      linalg.yield %20 : f32
    } -> tensor<1x512x256xf32>
    %11 = tensor.empty() : tensor<256x128xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%fc2_weight : tensor<128x256xf32>) outs(%11 : tensor<256x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<256x128xf32>
    %13 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<1x512x256xf32>) outs(%6 : tensor<1x512x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x512x256xf32>
    %14 = tensor.empty() : tensor<1x256x128xf32>
    %15 = linalg.generic {indexing_maps = [#map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12 : tensor<256x128xf32>) outs(%14 : tensor<1x256x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x256x128xf32>
    %16 = linalg.fill ins(%cst_3 : f32) outs(%2 : tensor<1x512x128xf32>) -> tensor<1x512x128xf32>
    %17 = linalg.batch_matmul ins(%13, %15 : tensor<1x512x256xf32>, tensor<1x256x128xf32>) outs(%16 : tensor<1x512x128xf32>) -> tensor<1x512x128xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %fc2_bias : tensor<1x512x128xf32>, tensor<128xf32>) outs(%2 : tensor<1x512x128xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %19 = arith.addf %in, %in_4 : f32
      linalg.yield %19 : f32
    } -> tensor<1x512x128xf32>
    return %18 : tensor<1x512x128xf32>
  }
}

