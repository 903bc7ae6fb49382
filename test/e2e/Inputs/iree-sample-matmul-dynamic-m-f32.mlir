// iree-sample-matmul-dynamic-m-f32.mlir
// FRONTEND-SOURCE: iree-org/iree@cea810173e0f7d2d0246195aef5ab84e999ae506:samples/sink_callback/model.mlir
//
// What: the plain frontend-style dynamic-M GEMM: Y[M,N] = X[M,K] * W[K,N], M
// dynamic (batch/token count), weight static. The init tensor is sized from
// `tensor.dim` of the LHS, zero-filled with linalg.fill, then linalg.matmul.
// torch-mlir's aten.mm lowering emits the same op sequence once tensor.dim of
// static sizes folds (with torch.assume_strict_symbolic_shapes it also emits no
// cf.assert). StableHLO's dot lowering does too; its `@dot_matmul` test in
// stablehlo/conversions/linalg/tests/dot-product.mlir shows the mirror case,
// where N is the dynamic dim.
//
// Source: iree-org/iree, samples/sink_callback/model.mlir (commit
//   cea810173e0f7d2d0246195aef5ab84e999ae506, PR #22535), function `@main`
//   ("softmax(matmul(arg0, arg1))", operands tensor<?x16xf32> and tensor<16x16xf32>).
//
// Changes:
//   * The trailing `linalg.softmax dimension(1)` was removed; the function returns
//     the matmul result.
//   * The sizes went from K=16, N=16 to K=4096, N=11008 (a LLaMA-7B MLP
//     gate/up projection); the element type stays f32.
//   * The function was renamed from @main to @dyn_m_matmul_4096x11008. The empty
//     tensor has its own SSA name (%empty, as in the source) and is used only by
//     the fill.
//
// Pattern: arith.constant 0 : index -> tensor.dim(X, 0) -> tensor.empty(%m) : ?xN ->
//   linalg.fill(0.0) -> linalg.matmul (?xK * KxN -> ?xN).

func.func @dyn_m_matmul_4096x11008(%arg0: tensor<?x4096xf32>, %arg1: tensor<4096x11008xf32>)
    -> tensor<?x11008xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %arg0, %c0 : tensor<?x4096xf32>
  %empty = tensor.empty(%m) : tensor<?x11008xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x11008xf32>)
               -> tensor<?x11008xf32>
  %mat = linalg.matmul ins(%arg0, %arg1 : tensor<?x4096xf32>, tensor<4096x11008xf32>)
                      outs(%init : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  return %mat : tensor<?x11008xf32>
}
