// RUN: vibegemm-opt %s --vibegemm-lower-to-ptx="target=sm_75" --split-input-file --verify-diagnostics

// expected-error @below {{unknown target 'sm_75'}}
module {
  func.func @f() {
    return
  }
}
