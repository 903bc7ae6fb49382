// tosa-fully-connected-dynamic-m-f32.mlir
// FRONTEND-SOURCE: llvm/llvm-project@c808a11ee88933afdd0ec37c7e5ee775fa96d46a:mlir/test/Conversion/TosaToLinalg/tosa-to-linalg-named.mlir
//
// What: a fully-connected (nn.Linear-style) layer with a bias and a dynamic
// batch/token dimension M, as the TOSA -> linalg frontend path
// (`--tosa-to-linalg-named`) lowers `tosa.fully_connected`:
// Y[M,N] = X[M,K] * W[N,K]^T + b[N], M dynamic, N and K static.
//
// Source: llvm/llvm-project,
//   mlir/test/Conversion/TosaToLinalg/tosa-to-linalg-named.mlir
//   at commit c808a11ee88933afdd0ec37c7e5ee775fa96d46a, test `@fully_connected_dyn`
//   (input: `tosa.fully_connected %arg0, %arg1, %arg2 :
//            (tensor<?x3xf32>, tensor<6x3xf32>, tensor<6xf32>) -> tensor<?x6xf32>`).
//   tosa.fully_connected has since been removed from upstream TOSA, so this
//   test no longer exists at LLVM 22; the IR below is what that lowering emitted.
//
// Changes:
//   * The CHECK lines were turned back into IR. The transpose's init
//     (`%[[TRANSPOSEDINIT:.+]]`, unnamed in the dynamic test) is written as
//     `tensor.empty() : tensor<KxN>`, which is what the static `@fully_connected` test
//     in the same file checks.
//   * The sizes went from K=3, N=6 to K=768, N=3072 (a BERT-base FFN
//     up-projection); the element type stays f32.
//   * The function was renamed from @fully_connected_dyn to @fully_connected_dyn_768x3072.
//   * The dead `arith.constant dense<[1, 0]> : tensor<2xi64>` (the TOSA perms
//     operand) that the CHECK lines show is kept, as the lowering emitted it.
//
// Pattern: tensor.dim(X, 0) -> linalg.transpose(W) -> tensor.empty(%dim) ->
//   linalg.generic broadcast of the bias into the ?xN init (NO linalg.fill: the
//   bias is the accumulator's initial value) -> linalg.matmul (?xK * KxN, outs = bias).

func.func @fully_connected_dyn_768x3072(%arg0: tensor<?x768xf32>, %arg1: tensor<3072x768xf32>,
                                        %arg2: tensor<3072xf32>) -> tensor<?x3072xf32> {
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x768xf32>
  %cst = arith.constant dense<[1, 0]> : tensor<2xi64>
  %0 = tensor.empty() : tensor<768x3072xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<3072x768xf32>)
                                 outs(%0 : tensor<768x3072xf32>) permutation = [1, 0]
  %1 = tensor.empty(%dim) : tensor<?x3072xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%arg2 : tensor<3072xf32>) outs(%1 : tensor<?x3072xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x3072xf32>
  %3 = linalg.matmul ins(%arg0, %transposed : tensor<?x768xf32>, tensor<768x3072xf32>)
                     outs(%2 : tensor<?x3072xf32>) -> tensor<?x3072xf32>
  return %3 : tensor<?x3072xf32>
}
