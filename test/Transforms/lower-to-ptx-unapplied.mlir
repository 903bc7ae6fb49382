// RUN: vibegemm-opt %s --vibegemm-lower-to-ptx --split-input-file --verify-diagnostics

// expected-error @below {{schedules were not applied yet; run --vibegemm-apply-schedules first}}
module {
  module @__vibegemm_schedules attributes {transform.with_named_sequence} {
  }
}

// -----

// A schedule that maps nothing to the GPU leaves host linalg behind.
module {
  // expected-error @below {{the schedule left work outside any gpu.launch}}
  func.func @d0(%a: memref<4xf32>, %b: memref<4xf32>) attributes {vibegemm.dispatch} {
    linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
    return
  }
}
