#!/usr/bin/env python3
"""Prints the PTX of every gpu.binary in an MLIR file, unescaped, so kernels
can be compared with cmp: with a .ptx artifact, or across pipelines.
Usage: binary-ptx.py FILE.mlir"""

import re
import sys

ASSEMBLY = re.compile(r'assembly = "((?:[^"\\]|\\.)*)"')


def unescape(text):
    """Undoes MLIR's string escapes: \\XX hex bytes, \\\\, \\", \\n, \\t."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in '\\"':
            out += nxt.encode()
            i += 2
        elif nxt in "nt":
            out += b"\n" if nxt == "n" else b"\t"
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    binaries = [line for line in text.splitlines() if "gpu.binary @" in line]
    if not binaries:
        sys.exit("no gpu.binary in " + sys.argv[1])
    for line in binaries:
        for m in ASSEMBLY.finditer(line):
            sys.stdout.buffer.write(unescape(m.group(1)))


if __name__ == "__main__":
    main()
