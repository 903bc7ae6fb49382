// torch.bmm over a run-time batch and row count, [B, S, 64] x [B, 64, 32]:
// each batch has its own right-hand side, so the batch cannot fold into M.
// test/frontends/torch-mlir-bmm.mlir with ? sizes; written for vibegemm
// (issue 32).
func.func @bmm(%a: tensor<?x?x64xf32>, %b: tensor<?x64x32xf32>) -> tensor<?x?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?x64xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n, %m) : tensor<?x?x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x64xf32>, tensor<?x64x32xf32>)
         outs(%f : tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  return %r : tensor<?x?x32xf32>
}
