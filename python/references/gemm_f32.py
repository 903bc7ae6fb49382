"""float64 reference for examples/gemm_f32.mlir: C = A @ B.

Inputs (arg_index order): a[4096x4096] f32, b[4096x4096] f32.
Output (result_index order): c[4096x4096] f32, checked with the f32
tolerance (1e-4 relative) by vibegemm_run_plan.py.
"""


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    a, b = inputs
    return [xp.matmul(a, b)]
