// RUN: vibegemm-opt %s --vibegemm-apply-schedules --split-input-file --verify-diagnostics

// expected-error @below {{dispatch has no schedule; run --vibegemm-builtin-schedule or llm-schedule first}}
func.func @unscheduled(%a: tensor<4xf32>) -> tensor<4xf32> attributes {vibegemm.dispatch} {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{schedule @missing not found}}
func.func @dangling(%a: tensor<4xf32>) -> tensor<4xf32> attributes {vibegemm.dispatch, vibegemm.schedule = @missing} {
  return %a : tensor<4xf32>
}
module @__vibegemm_schedules attributes {transform.with_named_sequence} {
}

// -----

// A schedule that fails while it runs reports the failing transform op.
// expected-note @below {{target op}}
func.func @d0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {vibegemm.dispatch, vibegemm.schedule = @d0} {
  return %a : tensor<4xf32>
}
module @__vibegemm_schedules attributes {transform.with_named_sequence} {
  transform.named_sequence @d0(%func: !transform.any_op {transform.consumed}) {
    // expected-error @below {{only TilingInterface ops are supported}}
    %t, %l = transform.structured.tile_using_forall %func tile_sizes [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
