"""Prints the PTX of one gpu.binary of an MLIR file (MLIR string escapes
undone), so tests can compare it with an artifacts directory's .ptx."""
import re
import sys

text = open(sys.argv[1]).read()
binary = re.search(r"gpu\.binary @" + re.escape(sys.argv[2]) + r"\b.*?assembly = \"((?:[^\"\\]|\\.)*)\"",
                   text, re.S)
if not binary:
    sys.exit("no gpu.binary @" + sys.argv[2])
raw = binary.group(1)
out = re.sub(r"\\([0-9A-Fa-f]{2})|\\(.)",
             lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), raw)
sys.stdout.write(out)
