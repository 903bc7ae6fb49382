// RUN: vibegemm-opt %s --vibegemm-prepare --vibegemm-form-dispatches --vibegemm-bucket-dispatches="bucket-sizes=1,16,64" --vibegemm-builtin-schedule="cpu-check=true" --vibegemm-apply-schedules --inline --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

// nn.Linear with a bias over a run-time batch and token count, [B, S, 33],
// as torch-mlir writes it for a 3-D input: the weight transposed and
// broadcast over the batch, a batch_matmul, the bias added along N.
// vibegemm-prepare folds the batch into M = B * S (the weight is shared),
// so one module of M buckets serves every (B, S). Run at (B, S) = (1, 1),
// (2, 7), (1, 16), (1, 17), (3, 22) and (2, 65), checked against linalg on
// the CPU. Written for vibegemm (issue 32).
// CHECK-COUNT-6: ok 1
#id3 = affine_map<(b, m, n) -> (b, m, n)>
#wT = affine_map<(b, k, n) -> (n, k)>
#row3 = affine_map<(b, m, n) -> (n)>
func.func @linear(%x: tensor<?x?x33xf32>, %w: tensor<45x33xf32>, %bias: tensor<45xf32>) -> tensor<?x?x45xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x33xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x33xf32>
  %ew = tensor.empty(%b) : tensor<?x33x45xf32>
  %wb = linalg.generic {indexing_maps = [#wT, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
          ins(%w : tensor<45x33xf32>) outs(%ew : tensor<?x33x45xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x33x45xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b, %s) : tensor<?x?x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x45xf32>) -> tensor<?x?x45xf32>
  %mm = linalg.batch_matmul ins(%x, %wb : tensor<?x?x33xf32>, tensor<?x33x45xf32>)
          outs(%f : tensor<?x?x45xf32>) -> tensor<?x?x45xf32>
  %e2 = tensor.empty(%b, %s) : tensor<?x?x45xf32>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%mm, %bias : tensor<?x?x45xf32>, tensor<45xf32>) outs(%e2 : tensor<?x?x45xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %r = arith.addf %v, %bv : f32
    linalg.yield %r : f32
  } -> tensor<?x?x45xf32>
  return %y : tensor<?x?x45xf32>
}

func.func @main() attributes {vibegemm.ignore} {
  %bs = arith.constant dense<[1, 2, 1, 1, 3, 2]> : tensor<6xindex>
  %ss = arith.constant dense<[1, 7, 16, 17, 22, 65]> : tensor<6xindex>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %b = tensor.extract %bs[%i] : tensor<6xindex>
    %s = tensor.extract %ss[%i] : tensor<6xindex>
    func.call @check(%b, %s) : (index, index) -> ()
  }
  return
}

// Fills with small multiples of 1/8 from the indices, so sums are exact.
func.func @check(%b: index, %s: index) attributes {vibegemm.ignore} {
  %x = tensor.generate %b, %s {
  ^bb0(%i: index, %j: index, %k: index):
    %row = arith.muli %i, %s : index
    %r = arith.addi %row, %j : index
    %v = func.call @pattern(%r, %k, %s) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<?x?x33xf32>
  %c45 = arith.constant 45 : index
  %w = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @pattern(%j, %i, %c45) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<45x33xf32>
  %bias = tensor.generate {
  ^bb0(%i: index):
    %v = func.call @pattern(%i, %i, %c45) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<45xf32>
  %y = func.call @linear(%x, %w, %bias) : (tensor<?x?x33xf32>, tensor<45x33xf32>, tensor<45xf32>) -> tensor<?x?x45xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b, %s) : tensor<?x?x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x45xf32>) -> tensor<?x?x45xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
           ins(%x, %w : tensor<?x?x33xf32>, tensor<45x33xf32>) outs(%f : tensor<?x?x45xf32>) {
  ^bb0(%xv: f32, %wv: f32, %o: f32):
    %p = arith.mulf %xv, %wv : f32
    %a = arith.addf %o, %p : f32
    linalg.yield %a : f32
  } -> tensor<?x?x45xf32>
  %ref = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]}
           ins(%bias : tensor<45xf32>) outs(%sum : tensor<?x?x45xf32>) {
  ^bb0(%bv: f32, %o: f32):
    %a = arith.addf %o, %bv : f32
    linalg.yield %a : f32
  } -> tensor<?x?x45xf32>
  %err = func.call @max_abs_diff(%y, %ref) : (tensor<?x?x45xf32>, tensor<?x?x45xf32>) -> f32
  %tol = arith.constant 1.0e-4 : f32
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

func.func @max_abs_diff(%x: tensor<?x?x45xf32>, %y: tensor<?x?x45xf32>) -> f32 attributes {vibegemm.ignore} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c45 = arith.constant 45 : index
  %nb = tensor.dim %x, %c0 : tensor<?x?x45xf32>
  %ns = tensor.dim %x, %c1 : tensor<?x?x45xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %nb step %c1 iter_args(%acc = %zero) -> f32 {
    %r1 = scf.for %j = %c0 to %ns step %c1 iter_args(%acc1 = %acc) -> f32 {
      %r2 = scf.for %k = %c0 to %c45 step %c1 iter_args(%acc2 = %acc1) -> f32 {
        %a = tensor.extract %x[%i, %j, %k] : tensor<?x?x45xf32>
        %b = tensor.extract %y[%i, %j, %k] : tensor<?x?x45xf32>
        %d = arith.subf %a, %b : f32
        %ad = math.absf %d : f32
        %mx = arith.maximumf %acc2, %ad : f32
        scf.yield %mx : f32
      }
      scf.yield %r2 : f32
    }
    scf.yield %r1 : f32
  }
  return %r : f32
}
