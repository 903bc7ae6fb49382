// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="cpu-check=true reference=true" --vibegemm-apply-schedules --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-form-dispatches --vibegemm-widen-half-softmax --vibegemm-builtin-schedule="reference=true" | FileCheck %s --check-prefix=SCHEDULE

// The reference schedule (one output per thread, every op its own kernel),
// which vibegemm-run checks epilogue chains against, computes the right
// numbers: GEMM + bias + ReLU on a ragged shape against a naive matmul.
// SCHEDULE-COUNT-2: transform.structured.tile_using_forall {{.*}} num_threads [16, 16]
// CHECK: max_abs_err
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok
// CHECK-NEXT: 1
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @ragged(%a: tensor<67x33xf32>, %b: tensor<33x45xf32>, %bias: tensor<45xf32>) -> tensor<67x45xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %c = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x45xf32>) outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%c, %bias : tensor<67x45xf32>, tensor<45xf32>) outs(%e : tensor<67x45xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<67x45xf32>
  return %y : tensor<67x45xf32>
}

func.func @main() attributes {vibegemm.ignore} {
  %a_t = tensor.generate {
  ^bb0(%i0: index, %i1: index):
    %x0 = arith.index_cast %i0 : index to i64
    %x1 = arith.index_cast %i1 : index to i64
    %m0 = arith.constant 7 : i64
    %p0 = arith.muli %x0, %m0 : i64
    %m1 = arith.constant 13 : i64
    %p1 = arith.muli %x1, %m1 : i64
    %s1 = arith.addi %p0, %p1 : i64
    %k = arith.constant 17 : i64
    %r = arith.remsi %s1, %k : i64
    %f = arith.sitofp %r : i64 to f32
    %h = arith.constant 8.5 : f32
    %d = arith.subf %f, %h : f32
    %q = arith.constant 0.125 : f32
    %v = arith.mulf %d, %q : f32
    tensor.yield %v : f32
  } : tensor<67x33xf32>
  %b_t = tensor.generate {
  ^bb0(%i0: index, %i1: index):
    %x0 = arith.index_cast %i0 : index to i64
    %x1 = arith.index_cast %i1 : index to i64
    %m0 = arith.constant 5 : i64
    %p0 = arith.muli %x0, %m0 : i64
    %m1 = arith.constant 3 : i64
    %p1 = arith.muli %x1, %m1 : i64
    %s1 = arith.addi %p0, %p1 : i64
    %k = arith.constant 17 : i64
    %r = arith.remsi %s1, %k : i64
    %f = arith.sitofp %r : i64 to f32
    %h = arith.constant 8.5 : f32
    %d = arith.subf %f, %h : f32
    %q = arith.constant 0.125 : f32
    %v = arith.mulf %d, %q : f32
    tensor.yield %v : f32
  } : tensor<33x45xf32>
  %bias_t = tensor.generate {
  ^bb0(%i0: index):
    %x0 = arith.index_cast %i0 : index to i64
    %k = arith.constant 7 : i64
    %r = arith.remsi %x0, %k : i64
    %f = arith.sitofp %r : i64 to f32
    %h = arith.constant 3.0 : f32
    %v = arith.subf %f, %h : f32
    tensor.yield %v : f32
  } : tensor<45xf32>
  %c = call @ragged(%a_t, %b_t, %bias_t) : (tensor<67x33xf32>, tensor<33x45xf32>, tensor<45xf32>) -> tensor<67x45xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %mm = linalg.matmul ins(%a_t, %b_t : tensor<67x33xf32>, tensor<33x45xf32>) outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  %ref = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %bias_t : tensor<67x45xf32>, tensor<45xf32>) outs(%e : tensor<67x45xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<67x45xf32>
  %cd = tensor.cast %c : tensor<67x45xf32> to tensor<?x?xf32>
  %rd = tensor.cast %ref : tensor<67x45xf32> to tensor<?x?xf32>
  %err = call @max_abs_diff(%cd, %rd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  vector.print str "max_abs_err\n"
  vector.print %err : f32
  %tol = arith.constant 1.0e-3 : f32
  %ok = arith.cmpf olt, %err, %tol : f32
  vector.print str "ok\n"
  vector.print %ok : i1
  return
}

func.func @max_abs_diff(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> f32 attributes {vibegemm.ignore} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> f32 {
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %acc) -> f32 {
      %a = tensor.extract %x[%i, %j] : tensor<?x?xf32>
      %b = tensor.extract %y[%i, %j] : tensor<?x?xf32>
      %d = arith.subf %a, %b : f32
      %ad = math.absf %d : f32
      %mx = arith.maximumf %acc2, %ad : f32
      scf.yield %mx : f32
    }
    scf.yield %r2 : f32
  }
  return %r : f32
}
