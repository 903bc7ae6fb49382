"""Runs a command with its stderr in a file, and kills it (SIGTERM) once
the file has a line containing a pattern: a run stopped part-way, at a
point the test chooses rather than after a fixed time.
Usage: kill-when-logged.py PATTERN STDERR_FILE TIMEOUT_S -- COMMAND...
Exits 0 when it killed the command after the pattern appeared; 1 when the
command ended by itself or the pattern did not appear within TIMEOUT_S."""
import subprocess
import sys
import time

pattern, log, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
command = sys.argv[sys.argv.index("--") + 1:]
with open(log, "w") as err:
    proc = subprocess.Popen(command, stderr=err)
deadline = time.time() + timeout
while time.time() < deadline:
    if proc.poll() is not None:
        sys.stderr.write("the command ended by itself (exit %d)\n" % proc.returncode)
        sys.exit(1)
    with open(log) as f:
        if pattern in f.read():
            proc.terminate()
            proc.wait()
            sys.exit(0)
    time.sleep(0.1)
proc.kill()
sys.stderr.write("no '%s' within %g s\n" % (pattern, timeout))
sys.exit(1)
