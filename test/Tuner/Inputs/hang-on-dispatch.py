"""A command provider that never answers for one dispatch: it sleeps
argv[3] seconds when the user message names dispatch argv[1], and prints the
reply file argv[2] for the others (a model that stalls on one request)."""
import json
import sys
import time

request = json.load(sys.stdin)
if "Dispatch `%s`" % sys.argv[1] in request["messages"][1]["content"]:
    time.sleep(float(sys.argv[3]))
    sys.exit(1)
sys.stdout.write(open(sys.argv[2]).read())
