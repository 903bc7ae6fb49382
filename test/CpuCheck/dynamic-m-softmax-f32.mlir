// RUN: vibegemm-opt %s --vibegemm-prepare --vibegemm-form-dispatches --vibegemm-bucket-dispatches="bucket-sizes=1,16,64" --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --inline --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: vibegemm-opt %s --vibegemm-prepare --vibegemm-form-dispatches --vibegemm-bucket-dispatches --vibegemm-builtin-schedule="reference=true" | FileCheck %s --check-prefix=REF

// Attention scores over a run-time query count M: softmax(Q * K^T) along
// the keys, Q [M, 33], K [45, 33], compiled once and run at M = 1, 7, 16,
// 17, 64, 65 and 129 against a softmax written out in linalg (row max,
// exp, row sum, divide) on the CPU. The reference schedule, which checks
// the GPU kernels, takes one softmax row per block over a run-time M, so
// no thread's row buffers depend on it. Written for vibegemm (issue 32).
// CHECK-COUNT-7: ok 1
// REF-LABEL: transform.named_sequence @scores_d0_m2_16
//       REF:   transform.structured.tile_using_forall %{{.+}} tile_sizes [1](mapping = [#gpu.block<x>])
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#rowv = affine_map<(m, n) -> (m)>
func.func @scores(%q: tensor<?x33xf32>, %k: tensor<45x33xf32>) -> tensor<?x45xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %q, %c0 : tensor<?x33xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x45xf32>) -> tensor<?x45xf32>
  %s = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
         ins(%q, %k : tensor<?x33xf32>, tensor<45x33xf32>)
         outs(%f : tensor<?x45xf32>) -> tensor<?x45xf32>
  %e2 = tensor.empty(%m) : tensor<?x45xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<?x45xf32>) outs(%e2 : tensor<?x45xf32>) -> tensor<?x45xf32>
  return %p : tensor<?x45xf32>
}

func.func @main() attributes {vibegemm.ignore} {
  %sizes = arith.constant dense<[1, 7, 16, 17, 64, 65, 129]> : tensor<7xindex>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  scf.for %i = %c0 to %c7 step %c1 {
    %m = tensor.extract %sizes[%i] : tensor<7xindex>
    func.call @check(%m) : (index) -> ()
  }
  return
}

func.func @check(%m: index) attributes {vibegemm.ignore} {
  %q = tensor.generate %m {
  ^bb0(%i: index, %j: index):
    %v = func.call @pattern(%i, %j, %m) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<?x33xf32>
  %c45 = arith.constant 45 : index
  %k = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @pattern(%j, %i, %c45) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<45x33xf32>
  %y = func.call @scores(%q, %k) : (tensor<?x33xf32>, tensor<45x33xf32>) -> tensor<?x45xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x45xf32>) -> tensor<?x45xf32>
  %s = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
         ins(%q, %k : tensor<?x33xf32>, tensor<45x33xf32>)
         outs(%f : tensor<?x45xf32>) -> tensor<?x45xf32>
  %lowest = arith.constant -3.0e38 : f32
  %er = tensor.empty(%m) : tensor<?xf32>
  %fmax = linalg.fill ins(%lowest : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %rmax = linalg.generic {indexing_maps = [#id, #rowv], iterator_types = ["parallel", "reduction"]}
            ins(%s : tensor<?x45xf32>) outs(%fmax : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %mx = arith.maximumf %v, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<?xf32>
  %ex = linalg.generic {indexing_maps = [#id, #rowv, #id], iterator_types = ["parallel", "parallel"]}
          ins(%s, %rmax : tensor<?x45xf32>, tensor<?xf32>) outs(%e : tensor<?x45xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<?x45xf32>
  %fsum = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %rsum = linalg.generic {indexing_maps = [#id, #rowv], iterator_types = ["parallel", "reduction"]}
            ins(%ex : tensor<?x45xf32>) outs(%fsum : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %e3 = tensor.empty(%m) : tensor<?x45xf32>
  %ref = linalg.generic {indexing_maps = [#id, #rowv, #id], iterator_types = ["parallel", "parallel"]}
           ins(%ex, %rsum : tensor<?x45xf32>, tensor<?xf32>) outs(%e3 : tensor<?x45xf32>) {
  ^bb0(%v: f32, %sm: f32, %o: f32):
    %d = arith.divf %v, %sm : f32
    linalg.yield %d : f32
  } -> tensor<?x45xf32>
  %err = func.call @max_abs_diff(%y, %ref) : (tensor<?x45xf32>, tensor<?x45xf32>) -> f32
  %tol = arith.constant 1.0e-5 : f32
  %ok = arith.cmpf olt, %err, %tol : f32
  vector.print str "ok "
  vector.print %ok : i1
  return
}

func.func @pattern(%i: index, %j: index, %salt: index) -> f32 attributes {vibegemm.ignore} {
  %x0 = arith.index_cast %i : index to i64
  %x1 = arith.index_cast %j : index to i64
  %x2 = arith.index_cast %salt : index to i64
  %c7 = arith.constant 7 : i64
  %c13 = arith.constant 13 : i64
  %p0 = arith.muli %x0, %c7 : i64
  %p1 = arith.muli %x1, %c13 : i64
  %s0 = arith.addi %p0, %p1 : i64
  %s1 = arith.addi %s0, %x2 : i64
  %c17 = arith.constant 17 : i64
  %r = arith.remsi %s1, %c17 : i64
  %f = arith.sitofp %r : i64 to f32
  %h = arith.constant 8.5 : f32
  %d = arith.subf %f, %h : f32
  %q = arith.constant 0.125 : f32
  %v = arith.mulf %d, %q : f32
  return %v : f32
}

func.func @max_abs_diff(%x: tensor<?x45xf32>, %y: tensor<?x45xf32>) -> f32 attributes {vibegemm.ignore} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c45 = arith.constant 45 : index
  %m = tensor.dim %x, %c0 : tensor<?x45xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> f32 {
    %r2 = scf.for %j = %c0 to %c45 step %c1 iter_args(%acc2 = %acc) -> f32 {
      %a = tensor.extract %x[%i, %j] : tensor<?x45xf32>
      %b = tensor.extract %y[%i, %j] : tensor<?x45xf32>
      %d = arith.subf %a, %b : f32
      %ad = math.absf %d : f32
      %mx = arith.maximumf %acc2, %ad : f32
      scf.yield %mx : f32
    }
    scf.yield %r2 : f32
  }
  return %r : f32
}
