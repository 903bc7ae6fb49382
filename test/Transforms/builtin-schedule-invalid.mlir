// RUN: vibegemm-opt %s --vibegemm-builtin-schedule="target=sm_75" --split-input-file --verify-diagnostics

// expected-error @below {{unknown target 'sm_75'; known: sm_80, sm_90, sm_90a}}
module {
  func.func @f() {
    return
  }
}
