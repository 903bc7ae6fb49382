// RUN: vibegemm-opt %s --vibegemm-prepare-lowering="target=sm_90a" --split-input-file | FileCheck %s

// Every function records its input count before results become
// out-parameters; a launch plan maps arguments back by position.
// CHECK-LABEL: func.func @host
//  CHECK-SAME: vibegemm.num_inputs = 2 : i64
func.func @host(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A dispatch its script bufferized: fresh buffers nothing else aliases
// (restrict) and inputs only read (read_only), so the module-wide
// bufferization adds no copies. Other functions are left alone.
// CHECK-LABEL: func.func @dispatch
//       CHECK: bufferization.to_buffer %{{.*}} read_only
//       CHECK: bufferization.to_tensor %{{.*}} restrict
// CHECK-LABEL: func.func @other
//   CHECK-NOT: read_only
//   CHECK-NOT: restrict
//       CHECK: return
func.func @dispatch(%a: tensor<4xf32>) -> tensor<4xf32>
    attributes {vibegemm.dispatch} {
  %m = bufferization.to_buffer %a : tensor<4xf32> to memref<4xf32>
  %t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func @other(%a: tensor<4xf32>) -> tensor<4xf32> {
  %m = bufferization.to_buffer %a : tensor<4xf32> to memref<4xf32>
  %t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  return %t : tensor<4xf32>
}
