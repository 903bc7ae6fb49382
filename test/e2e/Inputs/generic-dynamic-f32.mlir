// Generic dispatches with no GEMM over run-time sizes, as torch-mlir writes
// them with dynamic dimensions: x.sum(-1, keepdim=True) over [M, 64] and
// [M, 4096] (reductions whose output's innermost size is 1) and torch.tanh
// over [B, S, 64] (two run-time sizes). Written for vibegemm (issue 32).
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m, 0)>
func.func @rowsum(%x: tensor<?x64xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<?x64xf32>) outs(%f : tensor<?x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}
#id3 = affine_map<(b, s, n) -> (b, s, n)>
func.func @tanh_batch(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x64xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%x : tensor<?x?x64xf32>) outs(%e : tensor<?x?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// The same row sum over rows of 4096 (an RMSNorm's sum of squares at
// Llama's width), where splitting the reduction matters.
#wide = affine_map<(m, n) -> (m, n)>
#wide_row = affine_map<(m, n) -> (m, 0)>
func.func @rowsum_wide(%x: tensor<?x4096xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %r = linalg.generic {indexing_maps = [#wide, #wide_row], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<?x4096xf32>) outs(%f : tensor<?x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}
