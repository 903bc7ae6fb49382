// RUN: vibegemm-opt %s --vibegemm-prepare --vibegemm-form-dispatches --vibegemm-bucket-dispatches --split-input-file | FileCheck %s

// A generic dispatch over a run-time token count is not split into
// buckets of M: its one schedule serves every size. It takes the size as a
// trailing index argument, which its own reads become, and its caller
// reads from the argument holding it. Written for vibegemm (issue 32).

#id = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @relu(
// CHECK-SAME:      %[[X:.*]]: tensor<?x64xf32>
// CHECK:         %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
// CHECK:         call @relu_d0(%[[X]], %[[M]]) : (tensor<?x64xf32>, index) -> tensor<?x64xf32>
// CHECK-LABEL: func.func @relu_d0(
// CHECK-SAME:      %{{.*}}: tensor<?x64xf32>, %[[SIZE:.*]]: index) -> tensor<?x64xf32>
// CHECK-SAME:      vibegemm.m_range = array<i64: 1, 1048560>
// CHECK-SAME:      vibegemm.signature = "generic_?x64f32_
// CHECK-NOT:     tensor.dim
// CHECK:         tensor.empty(%[[SIZE]]) : tensor<?x64xf32>
// CHECK-NOT:     func.func @relu_d0_m
func.func @relu(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// A reduction over a run-time number of rows: one row (decode) gets a
// static dispatch, whose reduction can split across the GPU; the rest
// share one dispatch taking M.
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m, 0)>
// CHECK-LABEL: func.func @rowsum(
// CHECK:         %[[M:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x64xf32>
// CHECK:         %[[ONE:.*]] = arith.cmpi ule, %[[M]], %c1
// CHECK:         scf.if %[[ONE]]
// CHECK:           call @rowsum_d0_m1_1(%{{.*}}) : (tensor<1x64xf32>) -> tensor<1x1xf32>
// CHECK:         else
// CHECK:           call @rowsum_d0_m2_1048560(%{{.*}}, %[[M]]) : (tensor<?x64xf32>, index) -> tensor<?x1xf32>
// CHECK-LABEL: func.func @rowsum_d0_m1_1(
// CHECK-SAME:      tensor<1x64xf32>) -> tensor<1x1xf32>
// CHECK-LABEL: func.func @rowsum_d0_m2_1048560(
// CHECK-SAME:      vibegemm.m_range = array<i64: 2, 1048560>
func.func @rowsum(%x: tensor<?x64xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<?x64xf32>) outs(%f : tensor<?x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// A batch and a token count: two size arguments, in the order the sizes
// appear in the tensors.
#id3 = affine_map<(b, s, n) -> (b, s, n)>
// CHECK-LABEL: func.func @tanh_batch(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x64xf32>
// CHECK-DAG:     %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG:     %[[S:.*]] = tensor.dim %[[X]], %c1
// CHECK:         call @tanh_batch_d0(%[[X]], %[[B]], %[[S]]) : (tensor<?x?x64xf32>, index, index)
// CHECK-LABEL: func.func @tanh_batch_d0(
// CHECK-SAME:      %[[B2:[a-z0-9]+]]: index, %[[S2:[a-z0-9]+]]: index)
// CHECK:         tensor.empty(%[[B2]], %[[S2]]) : tensor<?x?x64xf32>
func.func @tanh_batch(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x64xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%x : tensor<?x?x64xf32>) outs(%e : tensor<?x?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}
