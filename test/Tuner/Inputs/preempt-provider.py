#!/usr/bin/env python3
"""A command provider that stands for a preemption: requests of rounds
before ROUND are answered by replay-provider.py from REPLIES; the first of
round ROUND kills (SIGKILL) the vibegemm-opt whose command line holds
MARKER, as a cluster scheduler ending a task would.
Usage: preempt-provider.py REPLAY_PROVIDER REPLIES ROUND MARKER"""
import json
import os
import re
import signal
import subprocess
import sys
import time

replay, replies, at_round, marker = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
request = sys.stdin.read()
user = next(m["content"] for m in json.loads(request)["messages"] if m["role"] == "user")
if int(re.search(r"\bround (\d+)", user).group(1)) < at_round:
    answer = subprocess.run([sys.executable, replay, replies], input=request,
                            capture_output=True, text=True)
    sys.stdout.write(answer.stdout)
    sys.exit(answer.returncode)
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        continue
    if argv and argv[0].endswith(b"vibegemm-opt") and any(marker.encode() in a for a in argv):
        os.kill(int(pid), signal.SIGKILL)
time.sleep(5)
sys.exit(1)
