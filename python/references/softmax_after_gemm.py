"""float64 reference for test/e2e/softmax-after-gemm.mlir.

y = softmax(gelu_erf(A @ B)) over rows, with gelu_erf(t) = t/2 (1 + erf(t/sqrt 2)).
"""

import math


def reference(xp, inputs):
    """``xp`` is numpy or cupy; ``inputs`` are float64 arrays of it."""
    a, b = inputs
    t = xp.matmul(a, b)
    if xp.__name__ == "cupy":
        import cupyx.scipy.special as special
        erf = special.erf
    else:
        erf = xp.vectorize(math.erf)
    g = 0.5 * t * (1.0 + erf(t * 0.70710678))
    e = xp.exp(g - g.max(axis=1, keepdims=True))
    return [e / e.sum(axis=1, keepdims=True)]
