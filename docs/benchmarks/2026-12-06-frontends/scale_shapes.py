#!/usr/bin/env python3
"""Scales the static shapes of a test/frontends file to a real model's.

Usage: scale_shapes.py IN OUT DIM=DIM... [--const OLD=NEW ...]
Each dimension of every tensor type and expand_shape output_shape equal to
a DIM on the left becomes the one on the right; --const replaces a literal
(a layer norm's 1/D divisor, written as D).
"""
import re
import sys


def main():
    src, dst, *rest = sys.argv[1:]
    dims, consts = {}, {}
    args = iter(rest)
    for arg in args:
        if arg == "--const":
            old, new = next(args).split("=")
            consts[old] = new
        else:
            old, new = arg.split("=")
            dims[old] = new
    text = open(src).read()
    body = "\n".join(l for l in text.splitlines() if not l.startswith("//"))

    def tensor(m):
        parts = m.group(1).split("x")
        return "tensor<" + "x".join(dims.get(p, p) for p in parts[:-1]) + "x" + parts[-1] + ">"

    def shape(m):
        return "output_shape [" + ", ".join(dims.get(p.strip(), p.strip()) for p in m.group(1).split(",")) + "]"

    body = re.sub(r"tensor<([0-9x]+x[a-z0-9]+)>", tensor, body)
    body = re.sub(r"output_shape \[([0-9, ]+)\]", shape, body)
    for old, new in consts.items():
        body = body.replace(old, new)
    open(dst, "w").write(f"// Scaled from {src}: {' '.join(rest)}\n" + body + "\n")


if __name__ == "__main__":
    main()
