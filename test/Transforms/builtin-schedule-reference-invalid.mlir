// RUN: vibegemm-opt %s --vibegemm-builtin-schedule="reference=true" --split-input-file --verify-diagnostics

// A reference schedule would sum a bf16 softmax's rows in bf16.
#id = affine_map<(m, n) -> (m, n)>
module {
  func.func @scores_d0(%a: tensor<4x16xbf16>, %b: tensor<16x8xbf16>) -> tensor<4x8xbf16> attributes {vibegemm.dispatch} {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill {vibegemm.role = "init"} ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %c = linalg.matmul {vibegemm.role = "gemm"} ins(%a, %b : tensor<4x16xbf16>, tensor<16x8xbf16>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    %o = tensor.empty() : tensor<4x8xbf16>
    %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%o : tensor<4x8xbf16>) {
    ^bb0(%v: f32, %out: bf16):
      %r = arith.truncf %v : f32 to bf16
      linalg.yield %r : bf16
    } -> tensor<4x8xbf16>
    %so = tensor.empty() : tensor<4x8xbf16>
    // expected-error @below {{a reference or CPU-check schedule would sum this softmax's rows in its own element type; run --vibegemm-widen-half-softmax first}}
    %sm = linalg.softmax dimension(1) ins(%t : tensor<4x8xbf16>) outs(%so : tensor<4x8xbf16>) -> tensor<4x8xbf16>
    return %sm : tensor<4x8xbf16>
  }
}
