// A hand-written tuning spec with one schedule, for tests that need a small
// valid spec to import.
module attributes {transform.with_named_sequence, vibegemm.tuning_spec} {
  transform.named_sequence @vg_mm64x64x64_test(%arg0: !transform.any_op {transform.consumed}) attributes {vibegemm.signature = "mm64x64x64_test", vibegemm.target = "sm_90", vibegemm.toolchain = "22.1.8", vibegemm.time_ms = 0.25, vibegemm.measured = true, vibegemm.device = "NVIDIA H200", vibegemm.model = "hand-written"} {
    %0 = transform.bufferization.one_shot_bufferize %arg0 : (!transform.any_op) -> !transform.any_op
    transform.yield 
  }
}
