// torch-mlir (FX importer, fx.export_and_import -> linalg-on-tensors):
// nn.Linear(256, 128) + ReLU on a 2-D input [16, 256]. This is the second
// encoder layer of a stacked (sparse-)autoencoder MLP
// 784->256->128->64->32->16->32->...->784 (batch 16).
//
// Source:   https://github.com/evanmwilliams/fuseflow-compiler
//           commit c28b6509dceb319397d80f4d3de3f25229b61686
//           (file unchanged since 076b1035404d4a0db1ac95d7e689fe5ebc812533)
//           tests/models/sae.mlir
//           (an "IR Dump Before VerifyLinalgOnTensorsBackendContract" of
//            torch-mlir, i.e. the final torch-mlir linalg-on-tensors output)
// Changes:
//   - cut to the ops of the second Linear+ReLU (%7 .. %13 of the dump);
//     the producer of its input (%6, the first layer's ReLU) became the
//     function argument %arg0 : tensor<16x256xf32>, and %13 is returned.
//   - the weight/bias constants %cst_3 (dense_resource<torch_tensor_128_256_
//     torch.float32>, no blob in the dump) and %cst_4 (dense_resource<
//     torch_tensor_128_torch.float32>) were lifted to arguments
//     %weight : tensor<128x256xf32> and %bias : tensor<128xf32>.
//   - the scalar %cst_0 (0.0 : f32) constant line was kept; the func was
//     renamed @main -> @linear_relu; unused maps dropped; SSA numbering and
//     op order otherwise verbatim.
//
// Pattern notes: weight [out,in] transposed by an identity-body linalg.generic
// (maps (d0,d1) and (d1,d0)) into a fresh tensor.empty; fill(0) + linalg.matmul
// (16x256 * 256x128); bias broadcast via an input map (d1) in the add generic;
// ReLU as cmpf ugt + select; the add and the ReLU generics both use the same
// tensor.empty (%9) that the fill used as outs. ml_program global_seed.
//
// FRONTEND-SOURCE: evanmwilliams/fuseflow-compiler@c28b6509dceb319397d80f4d3de3f25229b61686:tests/models/sae.mlir
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
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @linear_relu(%arg0: tensor<16x256xf32>, %weight: tensor<128x256xf32>, %bias: tensor<128xf32>) -> tensor<16x128xf32> {
    %cst_0 = arith.constant 0.000000e+00 : f32
    %7 = tensor.empty() : tensor<256x128xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%weight : tensor<128x256xf32>) outs(%7 : tensor<256x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<256x128xf32>
    %9 = tensor.empty() : tensor<16x128xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<16x128xf32>) -> tensor<16x128xf32>
    %11 = linalg.matmul ins(%arg0, %8 : tensor<16x256xf32>, tensor<256x128xf32>) outs(%10 : tensor<16x128xf32>) -> tensor<16x128xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %bias : tensor<16x128xf32>, tensor<128xf32>) outs(%9 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %62 = arith.addf %in, %in_21 : f32
      linalg.yield %62 : f32
    } -> tensor<16x128xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<16x128xf32>) outs(%9 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %62 = arith.cmpf ugt, %in, %cst_0 : f32
      %63 = arith.select %62, %in, %cst_0 : f32
      linalg.yield %63 : f32
    } -> tensor<16x128xf32>
    return %13 : tensor<16x128xf32>
  }
}
