transform.named_sequence @l1_irregular_f32_d0(%arg0: !transform.any_op {transform.consumed}) {
  %0 = transform.tune.knob<"block_m"> = 128 : i64 from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
  %1 = transform.tune.knob<"block_n"> = 128 : i64 from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
  %2 = transform.structured.match attributes {vibegemm.role = "root"} in %arg0 : (!transform.any_op) -> !transform.any_op
  %3 = transform.structured.match attributes {vibegemm.role = "init"} in %arg0 : (!transform.any_op) -> !transform.any_op
  %tiled_op, %forall_op = transform.structured.tile_using_forall %2 tile_sizes [%0, %1](mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
  %fused_op, %new_containing_op = transform.structured.fuse_into_containing_op %3 into %forall_op : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.apply_patterns to %arg0 {
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.bufferization.eliminate_empty_tensors %arg0 : !transform.any_op
  %4 = transform.bufferization.one_shot_bufferize %arg0 {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %4 {
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  %5 = transform.structured.match attributes {vibegemm.role = "root"} in %4 : (!transform.any_op) -> !transform.any_op
  %6 = transform.get_parent_op %5 {op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
  %7 = transform.gpu.map_forall_to_blocks %6 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
  %8 = transform.structured.match attributes {vibegemm.role = "root"} in %7 : (!transform.any_op) -> !transform.any_op
  transform.vibegemm.align_operand_rows %8 {operands = array<i64: 1>} : !transform.any_op
  %9 = transform.vibegemm.gemm_to_ffma %8 {block_k = 32 : i64, stages = 2 : i64} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %4 {
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  transform.yield 
}
