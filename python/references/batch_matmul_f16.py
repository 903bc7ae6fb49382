"""float64 reference for test/e2e/batch-matmul-f16.mlir: C[b] = A[b] @ B[b]."""


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    a, b = inputs
    return [xp.matmul(a, b)]
