"""float64 reference for test/e2e/ragged-f32.mlir: C = A @ B (8205x5921x2949)."""


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    a, b = inputs
    return [xp.matmul(a, b)]
