"""float64 reference for examples/mlp_block_f16.mlir (transformer MLP block).

Inputs (arg_index order): x[512x1024] f16, w1[1024x4096] f16, b1[4096] f32,
w2[4096x1024] f16, b2[1024] f32 (weights stored [in, out]).
Output: y[512x1024] f16, where

    h = f16(relu(x @ w1 + b1))
    y = f16(h @ w2 + b2 + x)

The intermediate h is rounded to f16 here too because the real computation
stores it as an f16 tensor between its two GEMM dispatches; everything else
stays float64 and the f16 tolerance (1e-2 relative) covers the rest.
"""


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    x, w1, b1, w2, b2 = inputs
    h = xp.matmul(x, w1)
    h += b1
    h = xp.maximum(h, 0.0)
    h = h.astype(xp.float16).astype(xp.float64)  # stored as f16
    y = xp.matmul(h, w2)
    y += b2
    y += x
    return [y]
