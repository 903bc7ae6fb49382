// RUN: vibegemm-opt %s --vibegemm-apply-schedules --vibegemm-lower-to-ptx | FileCheck %s --check-prefix=SM90
// RUN: vibegemm-opt %s --vibegemm-apply-schedules --vibegemm-lower-to-ptx="target=sm_80" | FileCheck %s --check-prefix=SM80

// Host code keeps func/memref with gpu.launch_func; results became
// out-parameters; each dispatch ships as one gpu.binary of PTX.
// SM90-LABEL: func.func @d0(
//  SM90-SAME:   %{{.+}}: memref<64x16xf32>, %{{.+}}: memref<16x64xf32>, %[[OUT:.+]]: memref<64x64xf32>)
//       SM90:   gpu.launch_func @d0_kernels::@d0_kernel_0 blocks in
//  SM90-SAME:   args(%{{.+}} : memref<64x16xf32>, %{{.+}} : memref<16x64xf32>, %[[OUT]] : memref<64x64xf32>)
//       SM90: gpu.binary @d0_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
//  SM90-SAME:   .target sm_90
//  SM90-SAME:   .entry d0_kernel_0
// SM80: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
func.func @d0(%a: tensor<64x16xf32>, %b: tensor<16x64xf32>) -> tensor<64x64xf32> attributes {vibegemm.dispatch, vibegemm.schedule = @d0} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill {vibegemm.role = "init"} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = linalg.matmul {vibegemm.role = "root"} ins(%a, %b : tensor<64x16xf32>, tensor<16x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
module @__vibegemm_schedules attributes {transform.with_named_sequence} {
  transform.named_sequence @d0(%func: !transform.any_op {transform.consumed}) {
    %root = transform.structured.match attributes{vibegemm.role = "root"} in %func : (!transform.any_op) -> !transform.any_op
    %init = transform.structured.match attributes{vibegemm.role = "init"} in %func : (!transform.any_op) -> !transform.any_op
    %t, %forall = transform.structured.tile_using_forall %root tile_sizes [32, 32] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fi, %forall2 = transform.structured.fuse_into_containing_op %init into %forall : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tt, %tforall = transform.structured.tile_using_forall %t tile_sizes [1, 1] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ft, %tforall2 = transform.structured.fuse_into_containing_op %fi into %tforall : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %buf = transform.bufferization.one_shot_bufferize %func {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
    %blocks = transform.structured.match ops{["scf.forall"]} attributes{mapping = [#gpu.block<y>, #gpu.block<x>]} in %buf : (!transform.any_op) -> !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %blocks generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    %m = transform.gpu.map_nested_forall_to_threads %launch block_dims = [32, 32, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
