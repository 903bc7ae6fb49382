"""float64 reference for test/e2e/accumulate-input-f32.mlir: D = C + A @ B.

Inputs (arg_index order): a, b, c. Output: d (c itself must stay unchanged,
which vibegemm_run_plan.py checks for every input).
"""


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    a, b, c = inputs
    return [c + xp.matmul(a, b)]
