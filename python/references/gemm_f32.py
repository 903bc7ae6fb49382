"""float64 reference for a plain GEMM plan: C = A @ B.

Used for examples/gemm_f32.mlir and the e2e inputs ragged-f32, ragged-k-f32
and batch-matmul-f16 (numpy/cupy matmul broadcasts over a batch dimension).
Inputs (arg_index order): a, b. Output (result_index order): c.
"""


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    a, b = inputs
    return [xp.matmul(a, b)]
