// A tensor-core schedule for test/e2e/Inputs/mma-16x8x16-f16.mlir: one block,
// one warp, the GEMM rewritten as nvgpu mma.sync.
module attributes {transform.with_named_sequence, vibegemm.tuning_spec} {
  transform.named_sequence @vg_mm16x8x16_f16_f16_NN_e0_bbf3429816637f15(%func: !transform.any_op {transform.consumed}) attributes {vibegemm.signature = "mm16x8x16_f16_f16_NN_e0_bbf3429816637f15", vibegemm.target = "sm_90"} {
    %root = transform.structured.match attributes{vibegemm.role = "root"} in %func : (!transform.any_op) -> !transform.any_op
    %init = transform.structured.match attributes{vibegemm.role = "init"} in %func : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %root tile_sizes [16, 8] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused, %loop = transform.structured.fuse_into_containing_op %init into %forall : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %buf = transform.bufferization.one_shot_bufferize %func {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
    %blocks = transform.structured.match ops{["scf.forall"]} in %buf : (!transform.any_op) -> !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %blocks generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %mm = transform.structured.match ops{["linalg.matmul"]} in %launch : (!transform.any_op) -> !transform.any_op
    transform.nvgpu.rewrite_matmul_as_mma_sync %mm : (!transform.any_op) -> ()
    %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [32, 1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
