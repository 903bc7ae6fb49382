"""A command provider that proves a round's requests are in flight together:
each request registers in DIR/round-R and answers (with the reply file) only
once N requests of its round have arrived; after TIMEOUT seconds it fails,
saying how many came, and leaves the count (so requests sent one at a time
never meet). Usage: barrier-provider.py DIR N TIMEOUT REPLY."""
import os
import re
import sys
import json
import time
import uuid

directory, count, timeout, reply = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
request = json.load(sys.stdin)
user = request["messages"][1]["content"]
round_dir = os.path.join(directory, "round-" + re.search(r"round (\d+)", user).group(1))
os.makedirs(round_dir, exist_ok=True)
mine = os.path.join(round_dir, uuid.uuid4().hex)
open(mine, "w").close()
deadline = time.time() + timeout
while len(os.listdir(round_dir)) < count:
    if time.time() > deadline:
        sys.stderr.write("only %d of %d requests arrived together\n" % (len(os.listdir(round_dir)), count))
        os.remove(mine)
        sys.exit(1)
    time.sleep(0.05)
sys.stdout.write(open(reply).read())
