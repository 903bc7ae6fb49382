// Splits the op marked `split_me` three ways with transform.vibegemm.split_k
// (split-k-dynamic-m-f32.mlir). Written for vibegemm (issue 32).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match attributes{split_me} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %partial, %combine = transform.vibegemm.split_k %mm {split_factor = 3} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
