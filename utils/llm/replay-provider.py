#!/usr/bin/env python3
"""A command provider (llm-schedule endpoint=command:...) that answers from
recorded replies, so a tuning run can be repeated without a model.

The reply for a request is REPLIES/<dispatch>/r<round>-c<candidate>.md, found
from the user message's "Dispatch `NAME` ... round R ... candidate C". A
request with no recorded reply fails (exit 1), as an LLM error would.

  --delay S    wait S seconds before answering (a model's reply time)
  --delays L   per candidate number, comma-separated (overrides --delay;
               tests use it to make replies arrive in another order)
  --log FILE   append one JSON line per request: dispatch, round, candidate,
               start and end (Unix time), prompt bytes
  --state FILE remember the system prompts already sent, to report them as
               cached the way a provider's prefix cache would
  --record DIR for a request with no recorded reply, keep its prompts
               (DIR/<dispatch>/r<round>-c<candidate>.md, the system prompt
               once as DIR/system-<sha256>.md), so a stand-in can answer
               them and a later run replay the next round

Token counts in `usage` are estimates, bytes / 4 (there is no tokenizer
here); cached_tokens counts a system prompt seen before in this state file.
"""

import argparse
import fcntl
import hashlib
import json
import os
import re
import sys
import time


def record(path, text):
    """Writes `text` to `path` whole (concurrent providers share DIR)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("replies")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--delays")
    parser.add_argument("--log")
    parser.add_argument("--state")
    parser.add_argument("--record")
    args = parser.parse_args()

    start = time.time()
    request = json.load(sys.stdin)
    messages = request["messages"]
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    name = re.search(r"Dispatch `([^`]+)`", user)
    round_ = re.search(r"\bround (\d+)", user)
    candidate = re.search(r"\bcandidate (\d+)", user)
    if not (name and round_ and candidate):
        sys.stderr.write("replay-provider: the user message names no "
                         "dispatch, round and candidate\n")
        return 1
    key = (name.group(1), int(round_.group(1)), int(candidate.group(1)))
    path = os.path.join(args.replies, key[0], "r%d-c%d.md" % key[1:])

    cached = 0
    if args.state:
        digest = hashlib.sha256(system.encode()).hexdigest()
        with open(args.state, "a+") as state:
            fcntl.flock(state, fcntl.LOCK_EX)
            state.seek(0)
            if digest in state.read().split():
                cached = len(system.encode()) // 4
            else:
                state.write(digest + "\n")

    delay = args.delay
    if args.delays:
        delays = [float(d) for d in args.delays.split(",")]
        delay = delays[(key[2] - 1) % len(delays)]
    time.sleep(delay)
    if args.log:
        with open(args.log, "a") as log:
            fcntl.flock(log, fcntl.LOCK_EX)
            log.write(json.dumps({
                "dispatch": key[0], "round": key[1], "candidate": key[2],
                "start": start, "end": time.time(),
                "system_bytes": len(system.encode()),
                "user_bytes": len(user.encode()),
                "system_sha256": hashlib.sha256(system.encode()).hexdigest(),
                "replied": os.path.exists(path)}) + "\n")
    if not os.path.exists(path) and args.record:
        digest = hashlib.sha256(system.encode()).hexdigest()
        record(os.path.join(args.record, "system-%s.md" % digest), system)
        record(os.path.join(args.record, key[0], "r%d-c%d.md" % key[1:]),
               "<!-- system prompt: system-%s.md -->\n%s" % (digest, user))
    if not os.path.exists(path):
        sys.stderr.write("replay-provider: no recorded reply %s\n" % path)
        return 1
    content = open(path).read()
    prompt_bytes = len(system.encode()) + len(user.encode())
    json.dump({"choices": [{"message": {"role": "assistant",
                                        "content": content}}],
               "usage": {"prompt_tokens": prompt_bytes // 4,
                         "completion_tokens": len(content.encode()) // 4,
                         "prompt_tokens_details": {"cached_tokens": cached}}},
              sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
