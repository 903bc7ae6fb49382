// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --split-input-file | FileCheck %s

// A generic dispatch's script: the innermost output dimension over threads
// and blocks along x, the next over grid y, the reduction inside each
// thread, the fill fused into the tiles.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: transform.named_sequence @rowsum_d0
// CHECK: %{{.*}}, %[[BLOCKS:.+]] = transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 256, 0](mapping = [#gpu.block<y>, #gpu.block<x>])
// CHECK: tile_using_forall %{{.*}} tile_sizes [0, 1, 0](mapping = [#gpu.thread<x>])
// CHECK: %[[INIT:.+]] = transform.structured.match attributes {vibegemm.role = "init"}
// CHECK: fuse_into_containing_op %[[INIT]] into %[[BLOCKS]]
// CHECK: map_nested_forall_to_threads %{{.*}} block_dims = [256, 1, 1]
func.func @rowsum(%x: tensor<4x1000x77xf32>) -> tensor<4x1000xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x1000xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x1000xf32>) -> tensor<4x1000xf32>
  %s = linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x1000x77xf32>) outs(%f : tensor<4x1000xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<4x1000xf32>
  return %s : tensor<4x1000xf32>
}
