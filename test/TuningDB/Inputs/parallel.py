"""Runs one command N times at once and fails unless every copy exits 0.

Usage: parallel.py N -- COMMAND [ARGS...]

lit's shell cannot start background jobs, so the concurrent-writers test
starts its tuners through this script.
"""

import subprocess
import sys


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: parallel.py N -- COMMAND [ARGS...]")
    count, command = int(sys.argv[1]), sys.argv[3:]
    processes = [subprocess.Popen(command) for _ in range(count)]
    codes = [p.wait() for p in processes]
    failed = [c for c in codes if c != 0]
    print(f"{count} processes, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
