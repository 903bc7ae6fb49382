// RUN: vibegemm-opt %s --vibegemm-privatize-kernel-allocations --split-input-file --verify-diagnostics

func.func @dynamic(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{kernel allocates a dynamically sized buffer; the schedule must give it a static size}}
    %buf = memref.alloc(%n) : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @too_large() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{kernel allocates 8192 bytes per thread (limit 4096); stage it in shared memory or tile it smaller}}
    %buf = memref.alloc() : memref<2048xf32>
    gpu.terminator
  }
  return
}
