#!/usr/bin/env python3
"""A `command:` provider that hands each request to a stand-in model through
files, for recording replies. The system prompt (byte-identical across a
run) goes once to $BRIDGE/system-<sha256>.md; each request's user message
to $BRIDGE/pending/<id>.md, whose first line names that system file. The
stand-in writes $BRIDGE/replies/<id>.txt; this prints it, and keeps a copy
as $BRIDGE/recorded/<dispatch>/r<round>-c<candidate>.md, the layout
utils/llm/replay-provider.py answers from. Exits 1 after BRIDGE_TIMEOUT
seconds (default 7200) without a reply."""
import hashlib
import json
import os
import re
import sys
import time

root = os.environ["BRIDGE"]
body = json.load(sys.stdin)
system = next(m["content"] for m in body["messages"] if m["role"] == "system")
user = next(m["content"] for m in body["messages"] if m["role"] == "user")
digest = hashlib.sha256(system.encode()).hexdigest()[:16]
for d in ("pending", "replies", "recorded"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
system_file = os.path.join(root, "system-%s.md" % digest)
if not os.path.exists(system_file):
    tmp = system_file + ".%d.tmp" % os.getpid()
    open(tmp, "w").write(system)
    os.replace(tmp, system_file)
name = re.search(r"Dispatch `([^`]+)`", user).group(1)
rnd = int(re.search(r"\bround (\d+)", user).group(1))
cand = int(re.search(r"\bcandidate (\d+)", user).group(1))
rid = "%s-r%d-c%d" % (name, rnd, cand)
tmp = os.path.join(root, "pending", rid + ".tmp")
with open(tmp, "w") as f:
    f.write("<!-- system prompt: system-%s.md -->\n%s" % (digest, user))
os.rename(tmp, os.path.join(root, "pending", rid + ".md"))
reply = os.path.join(root, "replies", rid + ".txt")
deadline = time.time() + float(os.environ.get("BRIDGE_TIMEOUT", "7200"))
while time.time() < deadline:
    if os.path.exists(reply):
        time.sleep(0.5)  # let the writer finish
        text = open(reply).read()
        os.makedirs(os.path.join(root, "recorded", name), exist_ok=True)
        open(os.path.join(root, "recorded", name,
                          "r%d-c%d.md" % (rnd, cand)), "w").write(text)
        sys.stdout.write(text)
        sys.exit(0)
    time.sleep(1)
sys.exit(1)
