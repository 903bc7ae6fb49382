// Schedule of gemm-to-wgmma-ptx-ping-pong-cluster.test: the built-in sm_90a schedule
// of examples/gemm_bias_gelu_bf16.mlir as its "persistent-tma" variant, with
// 128x128 tiles and ping-pong consumers in clusters of 2 blocks along M
// (group_blocks after the kernel, as for the cooperative clusters).
module attributes {transform.with_named_sequence} {
transform.named_sequence @linear_gelu_d0(%arg0: !transform.any_op {transform.consumed}) {
  %0 = transform.tune.knob<"block_m"> = 128 : i64 from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
  %1 = transform.tune.knob<"block_n"> = 128 : i64 from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
  %2 = transform.structured.match attributes {vibegemm.role = "root"} in %arg0 : (!transform.any_op) -> !transform.any_op
  %3 = transform.structured.match attributes {vibegemm.role = "init"} in %arg0 : (!transform.any_op) -> !transform.any_op
  %4 = transform.structured.match attributes {vibegemm.role = "epilogue0"} in %arg0 : (!transform.any_op) -> !transform.any_op
  %tiled_op, %forall_op = transform.structured.tile_using_forall %4 tile_sizes [%0, %1](mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
  %fused_op, %new_containing_op = transform.structured.fuse_into_containing_op %2 into %forall_op : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
  %fused_op_0, %new_containing_op_1 = transform.structured.fuse_into_containing_op %3 into %new_containing_op : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.apply_patterns to %arg0 {
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.bufferization.eliminate_empty_tensors %arg0 : !transform.any_op
  %5 = transform.bufferization.one_shot_bufferize %arg0 {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %5 {
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  %6 = transform.structured.match attributes {vibegemm.role = "root"} in %5 : (!transform.any_op) -> !transform.any_op
  %7 = transform.get_parent_op %6 {op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
  %8 = transform.gpu.map_forall_to_blocks %7 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
  %9 = transform.structured.match attributes {vibegemm.role = "root"} in %8 : (!transform.any_op) -> !transform.any_op
  %10 = transform.vibegemm.gemm_to_wgmma %9 {consumers = 2 : i64, persistent_blocks = 132 : i64, cluster_rows = 2 : i64, tma_store, ping_pong} : (!transform.any_op) -> !transform.any_op
  transform.vibegemm.group_blocks %8 {group = 16 : i64} : !transform.any_op
  transform.apply_patterns to %5 {
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  transform.yield 
}
transform.named_sequence @__transform_main(%module: !transform.any_op {transform.readonly}) {
  %func = transform.structured.match ops{["func.func"]} attributes{sym_name = "linear_gelu_d0"} in %module : (!transform.any_op) -> !transform.any_op
  transform.include @linear_gelu_d0 failures(propagate) (%func) : (!transform.any_op) -> ()
  transform.yield
}
}
