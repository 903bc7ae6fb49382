// RUN: vibegemm-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/split-k-by-3.mlir --transform-interpreter --inline --vibegemm-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

// Split-K over a run-time M (transform.vibegemm.split_k): nn.Linear with a
// bias, K = 33 split 3 ways into [3, M, 45] partials and their sum, run at
// M = 1, 7, 16, 17, 64, 65 and 129 and checked against linalg on the CPU.
// The script is Inputs/split-k-by-3.mlir. Written for vibegemm (issue 32).
// CHECK-COUNT-7: ok 1
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @linear(%x: tensor<?x33xf32>, %w: tensor<45x33xf32>, %b: tensor<45xf32>) -> tensor<?x45xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x33xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x45xf32>) -> tensor<?x45xf32>
  %mm = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
          ins(%x, %w : tensor<?x33xf32>, tensor<45x33xf32>)
          outs(%f : tensor<?x45xf32>) {split_me} -> tensor<?x45xf32>
  %e2 = tensor.empty(%m) : tensor<?x45xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
         ins(%mm, %b : tensor<?x45xf32>, tensor<45xf32>) outs(%e2 : tensor<?x45xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> tensor<?x45xf32>
  return %y : tensor<?x45xf32>
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

// Fills with small multiples of 1/8 from the indices, so sums are exact.
func.func @check(%m: index) attributes {vibegemm.ignore} {
  %x = tensor.generate %m {
  ^bb0(%i: index, %j: index):
    %v = func.call @pattern(%i, %j, %m) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<?x33xf32>
  %c45 = arith.constant 45 : index
  %w = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @pattern(%j, %i, %c45) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<45x33xf32>
  %b = tensor.generate {
  ^bb0(%i: index):
    %v = func.call @pattern(%i, %i, %c45) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<45xf32>
  %y = func.call @linear(%x, %w, %b) : (tensor<?x33xf32>, tensor<45x33xf32>, tensor<45xf32>) -> tensor<?x45xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x45xf32>) -> tensor<?x45xf32>
  %ref = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
           ins(%x, %w : tensor<?x33xf32>, tensor<45x33xf32>)
           outs(%f : tensor<?x45xf32>) -> tensor<?x45xf32>
  %refb = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
            ins(%b : tensor<45xf32>) outs(%ref : tensor<?x45xf32>) {
  ^bb0(%bias: f32, %o: f32):
    %s = arith.addf %o, %bias : f32
    linalg.yield %s : f32
  } -> tensor<?x45xf32>
  %err = func.call @max_abs_diff(%y, %refb) : (tensor<?x45xf32>, tensor<?x45xf32>) -> f32
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
