// BERT's feed-forward half and LayerNorm (bert-base-uncased layer 0,
// resized) over a run-time sequence length S, [1, S, 64]: two GEMM
// dispatches and the LayerNorm's generic dispatches, all reading S at run
// time. The function of test/CpuCheck/dynamic-m-bert-layernorm-f32.mlir,
// where the CPU check runs it against the input as written.
//
// FRONTEND-SOURCE: xiwa1866/bert_lowering@05c0d4d7fc643bf7ef35398ce27ff4a0a159264a:helper/truncated.mlir
// Source: test/frontends/torch-mlir-bert-ffn-layernorm.mlir (torch-mlir's FX
// importer output, cut and resized as that file's header says).
// Changes for a run-time sequence length, as torch-mlir writes a dynamic
// dimension (torch.assume_strict_symbolic_shapes: no cf.assert):
//   - every 1x7x.. and 7x.. type has `?` for 7;
//   - %s = tensor.dim of the input's dimension 1 sizes the three
//     tensor.empty ops over the sequence (%0, %6, %73).
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map8 = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @BertWrapper(%attn_ln_out: tensor<1x?x64xf32>, %intermediate_weight: tensor<256x64xf32>, %intermediate_bias: tensor<256xf32>, %output_weight: tensor<64x256xf32>, %output_bias: tensor<64xf32>, %ln_weight: tensor<64xf32>, %ln_bias: tensor<64xf32>) -> tensor<1x?x64xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.dim %attn_ln_out, %c1 : tensor<1x?x64xf32>
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 5.000000e-01 : f32
  %cst_2 = arith.constant 9.9999999999999998E-13 : f64
  %cst_3 = arith.constant 6.400000e+01 : f32
  %cst_4 = arith.constant 1.41421354 : f32
  %cst_203 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty(%s) : tensor<1x?x64xf32>
  %6 = tensor.empty(%s) : tensor<1x?x1xf32>
  %7 = linalg.fill ins(%cst_203 : f32) outs(%6 : tensor<1x?x1xf32>) -> tensor<1x?x1xf32>
  %35 = linalg.fill ins(%cst_203 : f32) outs(%0 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  %69 = tensor.empty() : tensor<64x256xf32>
  %transposed_225 = linalg.transpose ins(%intermediate_weight : tensor<256x64xf32>) outs(%69 : tensor<64x256xf32>) permutation = [1, 0] 
  %collapsed_226 = tensor.collapse_shape %attn_ln_out [[0, 1], [2]] : tensor<1x?x64xf32> into tensor<?x64xf32>
  %70 = linalg.generic {indexing_maps = [#map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_226 : tensor<?x64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x?x64xf32>
  %71 = tensor.empty() : tensor<1x64x256xf32>
  %72 = linalg.generic {indexing_maps = [#map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_225 : tensor<64x256xf32>) outs(%71 : tensor<1x64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x64x256xf32>
  %73 = tensor.empty(%s) : tensor<1x?x256xf32>
  %74 = linalg.fill ins(%cst_203 : f32) outs(%73 : tensor<1x?x256xf32>) -> tensor<1x?x256xf32>
  %75 = linalg.batch_matmul ins(%70, %72 : tensor<1x?x64xf32>, tensor<1x64x256xf32>) outs(%74 : tensor<1x?x256xf32>) -> tensor<1x?x256xf32>
  %76 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%75, %intermediate_bias : tensor<1x?x256xf32>, tensor<256xf32>) outs(%73 : tensor<1x?x256xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.addf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x256xf32>
  %77 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76 : tensor<1x?x256xf32>) outs(%73 : tensor<1x?x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = arith.divf %in, %cst_4 : f32
    %671 = math.erf %670 : f32
    %672 = arith.addf %671, %cst_0 : f32
    %673 = arith.mulf %672, %cst_1 : f32
    %674 = arith.mulf %in, %673 : f32
    linalg.yield %674 : f32
  } -> tensor<1x?x256xf32>
  %78 = tensor.empty() : tensor<256x64xf32>
  %transposed_227 = linalg.transpose ins(%output_weight : tensor<64x256xf32>) outs(%78 : tensor<256x64xf32>) permutation = [1, 0] 
  %collapsed_228 = tensor.collapse_shape %77 [[0, 1], [2]] : tensor<1x?x256xf32> into tensor<?x256xf32>
  %79 = linalg.generic {indexing_maps = [#map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_228 : tensor<?x256xf32>) outs(%73 : tensor<1x?x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x?x256xf32>
  %80 = tensor.empty() : tensor<1x256x64xf32>
  %81 = linalg.generic {indexing_maps = [#map8, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_227 : tensor<256x64xf32>) outs(%80 : tensor<1x256x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x256x64xf32>
  %82 = linalg.batch_matmul ins(%79, %81 : tensor<1x?x256xf32>, tensor<1x256x64xf32>) outs(%35 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  %83 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82, %output_bias : tensor<1x?x64xf32>, tensor<64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.addf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>
  %84 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%83, %attn_ln_out : tensor<1x?x64xf32>, tensor<1x?x64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.addf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>
  %85 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%84 : tensor<1x?x64xf32>) outs(%7 : tensor<1x?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = arith.addf %in, %out : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x1xf32>
  %86 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85 : tensor<1x?x1xf32>) outs(%6 : tensor<1x?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = arith.divf %in, %cst_3 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x1xf32>
  %collapsed_229 = tensor.collapse_shape %86 [[0], [1, 2]] : tensor<1x?x1xf32> into tensor<1x?xf32>
  %87 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_229 : tensor<1x?xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x?x64xf32>
  %88 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84, %87 : tensor<1x?x64xf32>, tensor<1x?x64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.subf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>
  %89 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%88, %88 : tensor<1x?x64xf32>, tensor<1x?x64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.mulf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>
  %90 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%89 : tensor<1x?x64xf32>) outs(%7 : tensor<1x?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = arith.addf %in, %out : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x1xf32>
  %91 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%90 : tensor<1x?x1xf32>) outs(%6 : tensor<1x?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = arith.divf %in, %cst_3 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x1xf32>
  %92 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%91 : tensor<1x?x1xf32>) outs(%6 : tensor<1x?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = arith.truncf %cst_2 : f64 to f32
    %671 = arith.addf %in, %670 : f32
    linalg.yield %671 : f32
  } -> tensor<1x?x1xf32>
  %93 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%92 : tensor<1x?x1xf32>) outs(%6 : tensor<1x?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %670 = math.rsqrt %in : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x1xf32>
  %collapsed_230 = tensor.collapse_shape %93 [[0], [1, 2]] : tensor<1x?x1xf32> into tensor<1x?xf32>
  %94 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_230 : tensor<1x?xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x?x64xf32>
  %95 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%88, %94 : tensor<1x?x64xf32>, tensor<1x?x64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.mulf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>
  %96 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%95, %ln_weight : tensor<1x?x64xf32>, tensor<64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.mulf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>
  %97 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%96, %ln_bias : tensor<1x?x64xf32>, tensor<64xf32>) outs(%0 : tensor<1x?x64xf32>) {
  ^bb0(%in: f32, %in_506: f32, %out: f32):
    %670 = arith.addf %in, %in_506 : f32
    linalg.yield %670 : f32
  } -> tensor<1x?x64xf32>

  return %97 : tensor<1x?x64xf32>
}
