"""A stand-in local model for the command provider: reads the OpenAI-style
request on stdin, checks it, and prints the reply file given as argv[1]
(and, given argv[2], appends the user message there)."""
import json
import sys

request = json.load(sys.stdin)
assert request["messages"][0]["role"] == "system", request
assert "transform.named_sequence" in request["messages"][1]["content"]
sys.stdout.write(open(sys.argv[1]).read())
if len(sys.argv) > 2:
    with open(sys.argv[2], "a") as log:
        log.write(request["messages"][1]["content"] + "\n")
