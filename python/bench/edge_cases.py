"""Writes edge-case GEMM problems as MLIR files, for the GPU check scripts.

    python3 python/bench/edge_cases.py OUTDIR DTYPE PREFIX SPEC...

Each SPEC is ``BATCHxMxNxK:LAYOUT[:EPILOGUE]``: LAYOUT's first letter is
``t`` when A is stored [K, M], its second when B is stored [N, K];
EPILOGUE is one of ``problems.EPILOGUES`` (default none).  The files are
named ``PREFIX<spec>_<dtype>.mlir``.
"""

from __future__ import annotations

import os
import sys

import problems
from problems import Problem


def parse(spec: str, dtype: str, prefix: str) -> Problem:
    """One SPEC as a level-1 Problem; ValueError says what is wrong."""
    parts = spec.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"{spec!r}: want BATCHxMxNxK:LAYOUT[:EPILOGUE]")
    dims = parts[0].split("x")
    if len(dims) != 4 or not all(d.isdigit() and int(d) > 0 for d in dims):
        raise ValueError(f"{spec!r}: want four positive sizes, BATCHxMxNxK")
    layout = parts[1]
    if len(layout) != 2 or set(layout) - {"n", "t"}:
        raise ValueError(f"{spec!r}: layout is two of n/t, e.g. nt")
    epilogue = parts[2] if len(parts) == 3 else "none"
    if epilogue not in problems.EPILOGUES:
        raise ValueError(f"{spec!r}: no epilogue {epilogue!r}")
    batch, m, n, k = map(int, dims)
    base = f"{prefix}{batch}x{m}x{n}x{k}_{layout}"
    if epilogue != "none":
        base += f"_{epilogue}"
    return Problem(base=base, level=1, dtype=dtype, batch=batch, m=m, n=n, k=k,
                   trans_a=layout[0] == "t", trans_b=layout[1] == "t",
                   epilogue=epilogue)


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    outdir, dtype, prefix, specs = argv[0], argv[1], argv[2], argv[3:]
    os.makedirs(outdir, exist_ok=True)
    try:
        cases = [parse(s, dtype, prefix) for s in specs]
    except ValueError as e:
        print(f"edge_cases.py: {e}", file=sys.stderr)
        return 2
    for p in cases:
        with open(os.path.join(outdir, f"{p.name}.mlir"), "w") as f:
            f.write(problems.mlir(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
