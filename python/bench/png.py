"""A tiny PNG bar-chart writer (stdlib only) for machines without matplotlib.

It draws what report.py's matplotlib plot draws, plainer: one row per
problem, a bar per column on a log axis, labels in a 3x5 pixel font.
"""

from __future__ import annotations

import math
import struct
import zlib

# 3x5 glyphs, five rows top to bottom; lower case draws as upper case.
_GLYPHS = """
A .#. #.# ### #.# #.#   B ##. #.# ##. #.# ##.   C .## #.. #.. #.. .##
D ##. #.# #.# #.# ##.   E ### #.. ##. #.. ###   F ### #.. ##. #.. #..
G .## #.. #.# #.# .##   H #.# #.# ### #.# #.#   I ### .#. .#. .#. ###
J ..# ..# ..# #.# .#.   K #.# #.# ##. #.# #.#   L #.. #.. #.. #.. ###
M #.# ### ### #.# #.#   N ##. #.# #.# #.# #.#   O .#. #.# #.# #.# .#.
P ##. #.# ##. #.. #..   Q .#. #.# #.# ##. .##   R ##. #.# ##. #.# #.#
S .## #.. .#. ..# ##.   T ### .#. .#. .#. .#.   U #.# #.# #.# #.# ###
V #.# #.# #.# #.# .#.   W #.# #.# ### ### #.#   X #.# #.# .#. #.# #.#
Y #.# #.# .#. .#. .#.   Z ### ..# .#. #.. ###   0 ### #.# #.# #.# ###
1 .#. ##. .#. .#. ###   2 ##. ..# .#. #.. ###   3 ##. ..# .#. ..# ##.
4 #.# #.# ### ..# ..#   5 ### #.. ##. ..# ##.   6 .## #.. ### #.# ###
7 ### ..# .#. .#. .#.   8 ### #.# ### #.# ###   9 ### #.# ### ..# ##.
_ ... ... ... ... ###   . ... ... ... ... .#.   - ... ... ### ... ...
/ ..# ..# .#. #.. #..   : ... .#. ... .#. ...   ( .#. #.. #.. #.. .#.
) .#. ..# ..# ..# .#.   = ... ### ... ### ...   % #.# ..# .#. #.. #.#
, ... ... ... .#. #..   + ... .#. ### .#. ...   * ... #.# .#. #.# ...
< ..# .#. #.. .#. ..#   > #.. .#. ..# .#. #..   ' .#. .#. ... ... ...
; ... .#. ... .#. #..
"""
_FONT = {" ": "." * 15}
for _line in _GLYPHS.strip().splitlines():
    _parts = _line.split()
    for _i in range(0, len(_parts), 6):
        _FONT[_parts[_i]] = "".join(_parts[_i + 1:_i + 6])


class Canvas:
    """An RGB raster with rectangles, lines and text."""

    def __init__(self, width, height, bg=(255, 255, 255)):
        self.w, self.h = width, height
        self.px = bytearray(bytes(bg) * (width * height))

    def rect(self, x0, y0, x1, y1, color):
        x0, x1 = max(0, int(min(x0, x1))), min(self.w, int(max(x0, x1)))
        y0, y1 = max(0, int(min(y0, y1))), min(self.h, int(max(y0, y1)))
        if x1 <= x0 or y1 <= y0:
            return
        row = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            i = (y * self.w + x0) * 3
            self.px[i:i + len(row)] = row

    def hline(self, x0, x1, y, color):
        self.rect(x0, y, x1, y + 1, color)

    def vline(self, x, y0, y1, color):
        self.rect(x, y0, x + 1, y1, color)

    def text(self, x, y, s, color=(0, 0, 0), scale=2):
        """Draw ``s`` with its top-left corner at (x, y); returns the end x."""
        for ch in s.upper():
            glyph = _FONT.get(ch, _FONT["*"])
            for r in range(5):
                for c in range(3):
                    if glyph[r * 3 + c] == "#":
                        self.rect(x + c * scale, y + r * scale,
                                  x + (c + 1) * scale, y + (r + 1) * scale, color)
            x += 4 * scale
        return x

    @staticmethod
    def text_width(s, scale=2):
        return len(s) * 4 * scale

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        return (b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def bar_chart(path, title, rows, series, colors, lo=1e-3, hi=10.0, ref=1.0):
    """Horizontal grouped bars on a log axis.

    ``rows``: [(label, [value or None per series])]; ``series``: legend names.
    The axis spans at least [lo, hi], widened by decades to fit every value;
    a vertical line marks ``ref``; a missing value is drawn as "n/a".
    """
    vals = [v for _, vs in rows for v in vs if v is not None and v > 0]
    if vals:
        lo = min(lo, 10.0 ** math.floor(math.log10(min(vals))))
        hi = max(hi, 10.0 ** math.ceil(math.log10(max(vals))))
    scale = 2
    label_w = max([Canvas.text_width(r[0], scale) for r in rows] + [80]) + 20
    bar_h, gap = 6, 8
    group_h = bar_h * len(series) + gap
    plot_w = 640
    top, bottom = 70, 50
    w = label_w + plot_w + 30
    h = top + group_h * len(rows) + bottom
    cv = Canvas(w, h)
    cv.text(10, 10, title, scale=scale)
    lx = 10
    for name, col in zip(series, colors):
        cv.rect(lx, 36, lx + 14, 46, col)
        lx = cv.text(lx + 20, 36, name, scale=scale) + 20
    x0 = label_w
    lg_lo, lg_hi = math.log10(lo), math.log10(hi)

    def xpos(v):
        v = min(max(v, lo), hi)
        return x0 + (math.log10(v) - lg_lo) / (lg_hi - lg_lo) * plot_w

    y_end = top + group_h * len(rows)
    for e in range(int(math.floor(lg_lo)), int(math.ceil(lg_hi)) + 1):
        x = xpos(10.0 ** e)
        cv.vline(x, top - 4, y_end, (215, 215, 215))
        lab = f"{10.0 ** e:g}"
        cv.text(x - Canvas.text_width(lab, scale) / 2, y_end + 8, lab, scale=scale)
    cv.vline(xpos(ref), top - 4, y_end, (0, 0, 0))
    for i, (label, values) in enumerate(rows):
        y = top + i * group_h
        cv.text(10, y + (group_h - gap) / 2 - 5, label, scale=scale)
        for j, v in enumerate(values):
            if v is None or not v > 0:
                cv.text(x0 + 2, y + j * bar_h, "n/a", colors[j], scale=1)
                continue
            cv.rect(x0, y + j * bar_h, xpos(v), y + (j + 1) * bar_h - 1, colors[j])
    cv.hline(x0, x0 + plot_w, y_end, (0, 0, 0))
    with open(path, "wb") as f:
        f.write(cv.png())
