// RUN: vibegemm-opt %s --vibegemm-builtin-schedule --split-input-file --verify-diagnostics

// expected-error @below {{no dispatches to schedule; run --vibegemm-form-dispatches first}}
module {
  func.func @f() {
    return
  }
}
