// RUN: vibegemm-opt %s --vibegemm-prepare-lowering="target=sm_75" --split-input-file --verify-diagnostics

// expected-error @below {{unknown target 'sm_75'}}
module {
  func.func @f() {
    return
  }
}
