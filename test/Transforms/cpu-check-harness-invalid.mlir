// RUN: vibegemm-opt %s --vibegemm-cpu-check-harness="function=nope" --verify-diagnostics

// expected-error @+1 {{no function to check named nope}}
module {
  func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
