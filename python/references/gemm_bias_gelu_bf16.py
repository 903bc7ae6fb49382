"""float64 reference for examples/gemm_bias_gelu_bf16.mlir (nn.Linear + GELU).

Inputs (arg_index order): x[1024x8192] bf16, w[8192x8192] bf16 stored
[N, K] like nn.Linear's weight, bias[8192] f32.
Output: y[1024x8192] bf16 = gelu_tanh(x @ w.T + bias), with
gelu_tanh(t) = 0.5 * t * (1 + tanh(0.7978845608 * (t + 0.044715 * t^3))).
The reference stays in float64 (the kernel accumulates in f32 and rounds
the result to bf16); the bf16 tolerance (1e-2 relative) covers that.
"""

GELU_K0 = 0.7978845608
GELU_K1 = 0.044715


def gelu_tanh(xp, t):
    """The tanh approximation of GELU, as the MLIR example spells it."""
    return 0.5 * t * (1.0 + xp.tanh(GELU_K0 * (t + GELU_K1 * (t * t * t))))


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    x, w, bias = inputs
    t = xp.matmul(x, w.T)
    t += bias  # broadcast over rows
    return [gelu_tanh(xp, t)]
