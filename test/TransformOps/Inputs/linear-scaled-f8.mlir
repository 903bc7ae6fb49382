// Input of gemm-to-wgmma-ptx-f8.test and builtin-schedule-fp8.mlir's
// pipeline: an FP8 nn.Linear as serving stacks run it (torch._scaled_mm):
// x [M, K] and W [N, K] in e4m3, f32 accumulation, the per-tensor scales of
// x and W (0-d tensors) applied to the accumulator, a bf16 result.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#scalar = affine_map<(m, n) -> ()>
func.func @linear_scaled_f8(%x: tensor<2048x1024xf8E4M3FN>, %w: tensor<4096x1024xf8E4M3FN>,
                            %scale_x: tensor<f32>, %scale_w: tensor<f32>) -> tensor<2048x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2048x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%x, %w : tensor<2048x1024xf8E4M3FN>, tensor<4096x1024xf8E4M3FN>)
      outs(%acc : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %out = tensor.empty() : tensor<2048x4096xbf16>
  %y = linalg.generic {indexing_maps = [#id, #scalar, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %scale_x, %scale_w : tensor<2048x4096xf32>, tensor<f32>, tensor<f32>)
      outs(%out : tensor<2048x4096xbf16>) {
  ^bb0(%v: f32, %sx: f32, %sw: f32, %o: bf16):
    %s = arith.mulf %sx, %sw : f32
    %r = arith.mulf %v, %s : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2048x4096xbf16>
  return %y : tensor<2048x4096xbf16>
}
