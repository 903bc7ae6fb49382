// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-builtin-schedule --split-input-file | FileCheck %s

// A generic dispatch's script: the innermost output dimension over threads
// and blocks along x, the next over grid y, the reduction inside each
// thread, the fill fused into the tiles.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// (77 elements a row are too few, and not a multiple of 32, to split.)
// CHECK-LABEL: transform.named_sequence @rowsum_d0
// CHECK: %[[INIT:.+]] = transform.structured.match attributes {vibegemm.role = "init"}
// CHECK-NOT: split_reduction
// CHECK: %{{.*}}, %[[BLOCKS:.+]] = transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 256, 0](mapping = [#gpu.block<y>, #gpu.block<x>])
// CHECK: tile_using_forall %{{.*}} tile_sizes [0, 1, 0](mapping = [#gpu.thread<x>])
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

// -----

// A long contiguous reduction (layer norm's row sums) is split: partial
// sums over 32 consecutive elements, a parallel innermost dimension spread
// over the threads, then a combining kernel with one row a thread and the
// original fill fused into it.
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: transform.named_sequence @layer_sum_d0
// CHECK: %[[INIT:.+]] = transform.structured.match attributes {vibegemm.role = "init"}
// CHECK: %{{.*}}, %[[FILL:.+]], %[[PARTIAL:.+]], %[[COMBINE:.+]] = transform.structured.split_reduction %{{.*}} {inner_parallel, insert_split_dimension = 1 : i64, split_factor = 32 : i64}
// CHECK: transform.annotate %[[PARTIAL]] "vibegemm.partial"
// CHECK: transform.annotate %[[COMBINE]] "vibegemm.combine"
// CHECK: %{{.*}}, %[[PBLOCKS:.+]] = transform.structured.tile_using_forall %[[PARTIAL]] tile_sizes [1, 0, 32](mapping = [#gpu.block<y>, #gpu.block<x>])
// CHECK: tile_using_forall %{{.*}} tile_sizes [0, 0, 1](mapping = [#gpu.thread<x>])
// CHECK: fuse_into_containing_op %[[FILL]] into %[[PBLOCKS]]
// CHECK: %{{.*}}, %[[CBLOCKS:.+]] = transform.structured.tile_using_forall %[[COMBINE]] tile_sizes [256, 0](mapping = [#gpu.block<x>])
// CHECK: fuse_into_containing_op %[[INIT]] into %[[CBLOCKS]]
// CHECK: match attributes {vibegemm.partial}
// CHECK: map_nested_forall_to_threads %{{.*}} block_dims = [32, 1, 1]
// CHECK: match attributes {vibegemm.combine}
// CHECK: map_nested_forall_to_threads %{{.*}} block_dims = [256, 1, 1]
func.func @layer_sum(%x: tensor<512x768xf32>) -> tensor<512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x768xf32>) outs(%f : tensor<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<512xf32>
  return %s : tensor<512xf32>
}

// -----

// The reduced dimension is not contiguous in the input (a column sum): no
// split, one column a thread (neighbouring threads read neighbours).
#in = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: transform.named_sequence @column_sum_d0
// CHECK-NOT: split_reduction
// CHECK: tile_using_forall %{{.*}} tile_sizes [256, 0](mapping = [#gpu.block<x>])
func.func @column_sum(%x: tensor<768x512xf32>) -> tensor<512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<768x512xf32>) outs(%f : tensor<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<512xf32>
  return %s : tensor<512xf32>
}
