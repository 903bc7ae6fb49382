// Shapes at the edges of the tensor-core path: each compiles to PTX, with
// mma.sync where the built-in scheduler takes it and FFMA where it does not.
// RUN: vibegemm-opt %s --split-input-file --vibegemm-compile | FileCheck %s
// RUN: vibegemm-opt %s --split-input-file --vibegemm-compile | grep -c mma.sync.aligned | FileCheck %s --check-prefix=COUNT
// Four of the six binaries hold mma.sync; the two SIMT ones do not.
// COUNT: 4

// misaligned N: B rows go through registers.
// CHECK-LABEL: gpu.binary @tc_100x100x4096_bf16_d0_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
#id = affine_map<(m, n) -> (m, n)>
func.func @tc_100x100x4096_bf16(%a: tensor<100x4096xbf16>, %b: tensor<4096x100xbf16>) -> tensor<100x100xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<100x100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<100x100xf32>) -> tensor<100x100xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<100x4096xbf16>, tensor<4096x100xbf16>) outs(%acc : tensor<100x100xf32>) -> tensor<100x100xf32>
  %out = tensor.empty() : tensor<100x100xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<100x100xf32>) outs(%out : tensor<100x100xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<100x100xbf16>
  return %y : tensor<100x100xbf16>
}

// -----

// misaligned N, 64x64 tiles.
// CHECK-LABEL: gpu.binary @tc_128x98x4096_bf16_d0_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
#id = affine_map<(m, n) -> (m, n)>
func.func @tc_128x98x4096_bf16(%a: tensor<128x4096xbf16>, %b: tensor<4096x98xbf16>) -> tensor<128x98xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<128x98xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<128x98xf32>) -> tensor<128x98xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x4096xbf16>, tensor<4096x98xbf16>) outs(%acc : tensor<128x98xf32>) -> tensor<128x98xf32>
  %out = tensor.empty() : tensor<128x98xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<128x98xf32>) outs(%out : tensor<128x98xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<128x98xbf16>
  return %y : tensor<128x98xbf16>
}

// -----

// huge K, ragged M and N: no split-K (its combine tiles need 64 | M, N).
// CHECK-LABEL: gpu.binary @tc_100x100x65536_bf16_d0_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
#id = affine_map<(m, n) -> (m, n)>
func.func @tc_100x100x65536_bf16(%a: tensor<100x65536xbf16>, %b: tensor<65536x100xbf16>) -> tensor<100x100xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<100x100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<100x100xf32>) -> tensor<100x100xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<100x65536xbf16>, tensor<65536x100xbf16>) outs(%acc : tensor<100x100xf32>) -> tensor<100x100xf32>
  %out = tensor.empty() : tensor<100x100xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<100x100xf32>) outs(%out : tensor<100x100xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<100x100xbf16>
  return %y : tensor<100x100xbf16>
}

// -----

// huge K: split-K, then a combining kernel.
// CHECK-LABEL: gpu.binary @tc_128x128x65536_bf16_d0_kernels
// CHECK-SAME: tc_128x128x65536_bf16_d0_kernel_1
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
#id = affine_map<(m, n) -> (m, n)>
func.func @tc_128x128x65536_bf16(%a: tensor<128x65536xbf16>, %b: tensor<65536x128xbf16>) -> tensor<128x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<128x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<128x128xf32>) -> tensor<128x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x65536xbf16>, tensor<65536x128xbf16>) outs(%acc : tensor<128x128xf32>) -> tensor<128x128xf32>
  %out = tensor.empty() : tensor<128x128xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<128x128xf32>) outs(%out : tensor<128x128xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// one block: the SIMT schedule.
// CHECK-LABEL: gpu.binary @tc_17x24x4096_bf16_d0_kernels
// CHECK-SAME: .visible .entry
#id = affine_map<(m, n) -> (m, n)>
func.func @tc_17x24x4096_bf16(%a: tensor<17x4096xbf16>, %b: tensor<4096x24xbf16>) -> tensor<17x24xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<17x24xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<17x24xf32>) -> tensor<17x24xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<17x4096xbf16>, tensor<4096x24xbf16>) outs(%acc : tensor<17x24xf32>) -> tensor<17x24xf32>
  %out = tensor.empty() : tensor<17x24xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<17x24xf32>) outs(%out : tensor<17x24xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<17x24xbf16>
  return %y : tensor<17x24xbf16>
}

// -----

// matrix-vector-like N: the SIMT schedule.
// CHECK-LABEL: gpu.binary @tc_256x8x1000_bf16_d0_kernels
// CHECK-SAME: .visible .entry
#id = affine_map<(m, n) -> (m, n)>
func.func @tc_256x8x1000_bf16(%a: tensor<256x1000xbf16>, %b: tensor<1000x8xbf16>) -> tensor<256x8xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256x8xf32>) -> tensor<256x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x1000xbf16>, tensor<1000x8xbf16>) outs(%acc : tensor<256x8xf32>) -> tensor<256x8xf32>
  %out = tensor.empty() : tensor<256x8xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm : tensor<256x8xf32>) outs(%out : tensor<256x8xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x8xbf16>
  return %y : tensor<256x8xbf16>
}
