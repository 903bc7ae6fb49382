"""A command provider that logs, per request, the SHA-256 of the system
message and the dispatch the user message names, then prints the reply
file. Usage: log-system.py LOG REPLY."""
import hashlib
import json
import re
import sys

log, reply = sys.argv[1], sys.argv[2]
request = json.load(sys.stdin)
system = request["messages"][0]["content"]
user = request["messages"][1]["content"]
name = re.search(r"Dispatch `([^`]+)`", user).group(1)
with open(log, "a") as f:
    f.write("%s %s\n" % (hashlib.sha256(system.encode()).hexdigest(), name))
sys.stdout.write(open(reply).read())
