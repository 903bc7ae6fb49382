#!/usr/bin/env python3
"""A `command:` LLM provider that hands each request to a stand-in model
through files: the request body (stdin) is written to
$VIBEGEMM_BRIDGE_DIR/pending/<id>.json, and the reply is whatever appears in
$VIBEGEMM_BRIDGE_DIR/replies/<id>.txt (the stand-in, a helper that sees only
that request, writes it). Prints the reply; exits 1 after BRIDGE_TIMEOUT
seconds (default 1800) without one.
"""
import json
import os
import sys
import time

root = os.environ["VIBEGEMM_BRIDGE_DIR"]
body = json.load(sys.stdin)
pending = os.path.join(root, "pending")
replies = os.path.join(root, "replies")
os.makedirs(pending, exist_ok=True)
os.makedirs(replies, exist_ok=True)
rid = "%d-%06d" % (time.time() * 1000, os.getpid())
tmp = os.path.join(pending, rid + ".tmp")
with open(tmp, "w") as f:
    json.dump({"id": rid, "messages": body["messages"]}, f, indent=1)
os.rename(tmp, os.path.join(pending, rid + ".json"))
reply = os.path.join(replies, rid + ".txt")
deadline = time.time() + float(os.environ.get("BRIDGE_TIMEOUT", "1800"))
while time.time() < deadline:
    if os.path.exists(reply):
        time.sleep(0.5)  # let the writer finish
        sys.stdout.write(open(reply).read())
        sys.exit(0)
    time.sleep(1)
sys.exit(1)
