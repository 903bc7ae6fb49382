// A tuning spec holding an LLM-written schedule for examples/gemm_f32.mlir
// (64x64 blocks; test/Tuner/Inputs/reply-good-64x64.txt), which the built-in
// scheduler would not pick.
module attributes {transform.with_named_sequence, vibegemm.tuning_spec} {
  transform.named_sequence @vg_mm4096x4096x4096_f32_f32_NN_e0_f8ada801c6342d40(%func: !transform.any_op {transform.consumed}) attributes {vibegemm.signature = "mm4096x4096x4096_f32_f32_NN_e0_f8ada801c6342d40", vibegemm.target = "sm_90"} {
    %0 = transform.tune.knob<"block_m"> = 64 : i64 from options = [32, 64, 128, 256] -> !transform.param<i64>
    %1 = transform.tune.knob<"block_n"> = 64 : i64 from options = [32, 64, 128, 256] -> !transform.param<i64>
    %2 = transform.tune.knob<"block_k"> = 8 : i64 from options = [8, 16, 32] -> !transform.param<i64>
    %3 = transform.tune.knob<"thread_m"> = 4 : i64 from options = [2, 4, 8] -> !transform.param<i64>
    %4 = transform.tune.knob<"thread_n"> = 4 : i64 from options = [2, 4, 8] -> !transform.param<i64>
    %5 = transform.structured.match attributes {vibegemm.role = "root"} in %func : (!transform.any_op) -> !transform.any_op
    %6 = transform.structured.match attributes {vibegemm.role = "init"} in %func : (!transform.any_op) -> !transform.any_op
    %tiled_op, %forall_op = transform.structured.tile_using_forall %5 tile_sizes [%0, %1](mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused_op, %new_containing_op = transform.structured.fuse_into_containing_op %6 into %forall_op : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled_linalg_op, %loops = transform.structured.tile_using_for %tiled_op tile_sizes [0, 0, %2] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %padded, %pad, %copy = transform.structured.pad %tiled_linalg_op {copy_back_op = "none", nofold_flags = [1, 1, 0], padding_dimensions = [0, 1, 2], padding_values = [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32]} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %forall_op_0, %tiled_op_1 = transform.structured.gpu.map_copy_to_threads %pad total_num_threads = 256 desired_bit_alignment = 128 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.foreach %forall_op_0 : !transform.any_op {
    ^bb0(%arg1: !transform.any_op):
      %18 = transform.structured.match ops{["scf.if"]} in %arg1 : (!transform.any_op) -> !transform.any_op
      transform.scf.take_assumed_branch %18 take_else_branch : (!transform.any_op) -> ()
    }
    %tiled_op_2, %forall_op_3 = transform.structured.tile_using_forall %padded tile_sizes [%3, %4](mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %tiled_op_4, %forall_op_5 = transform.structured.tile_using_forall %fused_op tile_sizes [%3, %4](mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.linalg.tiling_canonicalization
    } {apply_cse} : !transform.any_op
    %7:2 = transform.split_handle %tiled_op_1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %7#0 vector_sizes [1, 4] : !transform.any_op
    transform.structured.vectorize %7#1 vector_sizes [1, 4] : !transform.any_op
    transform.structured.vectorize %tiled_op_2 : !transform.any_op
    transform.structured.vectorize %tiled_op_4 : !transform.any_op
    %allocated_buffer, %new_ops = transform.structured.bufferize_to_allocation %forall_op_0 {alloc_op = "memref.alloca", bufferize_destination_only, memory_space = 3 : i64} : !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.vector.lower_masked_transfers
    } {apply_cse} : !transform.any_op
    transform.bufferization.eliminate_empty_tensors %func : !transform.any_op
    transform.apply_dce to %func : !transform.any_op
    transform.apply_cse to %func : !transform.any_op
    %8 = transform.bufferization.one_shot_bufferize %func {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %8 {
      transform.apply_patterns.canonicalization
    } {apply_cse} : !transform.any_op
    %9 = transform.structured.match ops{["linalg.copy"]} in %8 : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %9 : !transform.any_op
    %10 = transform.structured.match ops{["memref.alloca"]} in %8 : (!transform.any_op) -> !transform.op<"memref.alloca">
    %getGlobal, %global = transform.memref.alloca_to_global %10 : (!transform.op<"memref.alloca">) -> (!transform.any_op, !transform.any_op)
    %11 = transform.structured.match ops{["func.return"]} in %8 : (!transform.any_op) -> !transform.any_op
    %12 = transform.gpu.map_forall_to_blocks %8 generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %13 = transform.structured.match ops{["gpu.launch"]} in %12 : (!transform.any_op) -> !transform.any_op
    %14 = transform.gpu.map_nested_forall_to_threads %13 block_dims = [16, 16, 1] : (!transform.any_op) -> !transform.any_op
    %15 = transform.get_parent_op %14 {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %15 {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.memref.fold_memref_alias_ops
    } {apply_cse} : !transform.any_op
    %16 = transform.structured.match ops{["scf.for"]} in %15 : (!transform.any_op) -> !transform.any_op
    transform.apply_licm to %16 : !transform.any_op
    %17 = transform.structured.hoist_redundant_vector_transfers %15 : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %17 {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.sink_ops
      transform.apply_patterns.canonicalization
    } {apply_cse} : !transform.any_op
    transform.apply_patterns to %17 {
      transform.apply_patterns.vector.lower_contraction
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } {apply_cse} : !transform.any_op
    transform.yield
  }
}
