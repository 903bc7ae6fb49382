#!/usr/bin/env python3
"""Run the adversarial kernel suite through vibegemm-run and score it.

Every ``*.plan.json`` in the cases directory that carries an ``"expect"``
key (``{"status": ..., "why": ...}``, a key vibegemm-run ignores) is run as

    VIBEGEMM_RUN --json --timeout=S [--dim NAME=N ...] PLAN

(the --dim values from ``"expect": {"sizes": {"M": 37}}`` for a plan with
run-time sizes) and vibegemm-run's status is compared with the expected one.  Plans that
expect ``ok`` are controls (correct kernels: the checks must not reject
them); every other plan is a cheating kernel that one of the checks must
catch.  Each cheating plan, and each control that names a
``reference_plan``, is run a second time with ``--reference=kernel`` so the
trivially-scheduled-kernel reference is exercised as well as cuBLAS.

One line per run:

    CAUGHT case: status (diagnostic)
    MISSED case: got X, expected Y (diagnostic)
    PASSED control: ok
    FAILED control: got X, expected ok (diagnostic)

(``case [reference=kernel]`` for the second run), then

    adversarial: caught N of M cheating kernels; with --reference=kernel
    caught N2 of M2; controls passed P of Q

on one line.  A run also fails when vibegemm-run's exit code disagrees with
its status (0 ok; 1 wrong-result, fault, timeout; 2 plan, load or reference
error; 3 no GPU) or when it used another reference than the one asked for.

Exit status: 0 when every cheat was caught and every control passed, 1
otherwise, 2 for a usage problem (no cases, vibegemm-run cannot be run), 3 when
vibegemm-run reports that there is no GPU.

Standard library only.
"""

import argparse
import glob
import json
import os
import subprocess
import sys

EXPECTABLE = ("ok", "wrong-result", "fault", "timeout")
EXIT_CODES = {
    "ok": 0,
    "wrong-result": 1,
    "fault": 1,
    "timeout": 1,
    "plan-error": 2,
    "load-error": 2,
    "reference-error": 2,
    "no-gpu": 3,
}
EXIT_NO_GPU = 3
KERNEL_TAG = " [reference=kernel]"


class NoGpu(Exception):
    """vibegemm-run found no usable GPU: nothing in the suite can run."""


class CannotRun(Exception):
    """The vibegemm-run executable could not be started."""


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    inputs = os.path.normpath(os.path.join(here, os.pardir, "Inputs"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vibegemm-run", required=True, metavar="PATH",
                   help="the vibegemm-run executable (a name on PATH or a "
                        "path)")
    p.add_argument("--cases", default=inputs, metavar="DIR",
                   help="directory holding the *.plan.json cases "
                        "(default: test/Runtime/Inputs)")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S",
                   help="vibegemm-run's per-run timeout in seconds "
                        "(default: %(default)s)")
    p.add_argument("--json-out", metavar="FILE",
                   help="also write every run's result as JSON to FILE")
    return p.parse_args(argv)


def load_cases(cases_dir):
    """Return [(name, path, plan)] for every plan with an "expect" key.

    The other plans beside them (test/Runtime/Inputs also holds malformed
    plans for plan-errors.test, some not even JSON) are skipped.
    """
    cases = []
    for path in glob.glob(os.path.join(cases_dir, "*.plan.json")):
        with open(path, encoding="utf-8") as f:
            try:
                plan = json.load(f)
            except ValueError:
                continue
        if not isinstance(plan, dict) or "expect" not in plan:
            continue
        name = os.path.basename(path)[:-len(".plan.json")]
        cases.append((name, path, plan))
    cases.sort(key=lambda c: c[0])
    return cases


def parse_output(stdout):
    """Return vibegemm-run's JSON object from its stdout, or None."""
    try:
        doc = json.loads(stdout)
        if isinstance(doc, dict):
            return doc
    except ValueError:
        pass
    # Tolerate stray lines around the object: take the last line that is one.
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if isinstance(doc, dict):
                return doc
    return None


def one_line(text, limit=200):
    """The first non-empty line of text, shortened to limit characters."""
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[:limit - 3] + "..."
    return ""


def run_case(tool, plan_path, timeout, kernel_reference, sizes=None):
    """Run vibegemm-run on one plan; return a result dict."""
    cmd = [tool, "--json", f"--timeout={timeout:g}"]
    if kernel_reference:
        cmd.append("--reference=kernel")
    for name, value in sorted((sizes or {}).items()):
        cmd.append(f"--dim={name}={value}")
    cmd.append(plan_path)
    result = {"command": cmd, "exit_code": None, "status": None,
              "diagnostic": "", "reference": None, "stderr_tail": []}
    # vibegemm-run enforces --timeout on each of its child runs itself;
    # this wall limit only catches a vibegemm-run that hangs on its own.
    wall = max(120.0, 20.0 * timeout)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=wall,
                              check=False, universal_newlines=True,
                              errors="replace")
    except subprocess.TimeoutExpired:
        result["problem"] = f"vibegemm-run did not exit within {wall:g} s"
        return result
    except OSError as e:
        raise CannotRun(str(e)) from e
    result["exit_code"] = proc.returncode
    result["stderr_tail"] = proc.stderr.splitlines()[-5:]
    doc = parse_output(proc.stdout)
    if doc is None:
        result["problem"] = (f"no JSON object on vibegemm-run's stdout "
                             f"(exit {proc.returncode})")
        if proc.returncode == EXIT_CODES["no-gpu"]:
            raise NoGpu(one_line(proc.stderr) or "exit code 3")
        return result
    result["status"] = doc.get("status")
    result["diagnostic"] = doc.get("diagnostic") or ""
    result["reference"] = doc.get("reference")
    result["outputs"] = doc.get("outputs")
    if result["status"] == "no-gpu":
        raise NoGpu(one_line(result["diagnostic"]) or "no GPU")
    want_rc = EXIT_CODES.get(result["status"])
    if want_rc is not None and want_rc != proc.returncode:
        result["problem"] = (f"exit code {proc.returncode} does not match "
                             f"status {result['status']} (expected "
                             f"{want_rc})")
    elif (kernel_reference and result["reference"] not in (None, "none",
                                                           "kernel")):
        result["problem"] = (f"asked for --reference=kernel but it used "
                             f"reference {result['reference']}")
    return result


def judge(name, expected, result, kernel_reference):
    """Print the verdict line for one run; return True when it went right."""
    label = name + (KERNEL_TAG if kernel_reference else "")
    control = expected == "ok"
    status = result["status"]
    diag = one_line(result["diagnostic"])
    good = status == expected and "problem" not in result
    result["verdict"] = good
    if good and control:
        print(f"PASSED {label}: ok")
    elif good:
        print(f"CAUGHT {label}: {status} ({diag})")
    else:
        what = "FAILED" if control else "MISSED"
        if status == expected:
            line = (f"{what} {label}: {status} as expected, but "
                    f"{result['problem']}")
        else:
            got = status if status is not None else "no status"
            line = f"{what} {label}: got {got}, expected {expected}"
            if "problem" in result:
                line += f"; {result['problem']}"
        if diag:
            line += f" ({diag})"
        print(line)
        for err in result["stderr_tail"]:
            print(f"    stderr: {err}")
    sys.stdout.flush()
    return good


def main(argv):
    args = parse_args(argv)
    cases = load_cases(args.cases)
    if not cases:
        print(f"adversarial: no *.plan.json with an \"expect\" key in "
              f"{args.cases}")
        return 2
    bad = [n for n, _, p in cases
           if p["expect"].get("status") not in EXPECTABLE]
    if bad:
        print(f"adversarial: expect.status must be one of "
              f"{', '.join(EXPECTABLE)} in: {', '.join(bad)}")
        return 2

    counts = {"cheat": [0, 0], "cheat_kernel": [0, 0], "control": [0, 0]}
    runs = []
    try:
        for name, path, plan in cases:
            expected = plan["expect"]["status"]
            control = expected == "ok"
            modes = [False]
            if "reference_plan" in plan:
                modes.append(True)
            for kernel_reference in modes:
                result = run_case(args.vibegemm_run, path, args.timeout,
                                  kernel_reference,
                                  plan["expect"].get("sizes"))
                good = judge(name, expected, result, kernel_reference)
                key = ("control" if control else
                       "cheat_kernel" if kernel_reference else "cheat")
                counts[key][0] += good
                counts[key][1] += 1
                result.update(case=name, expected=expected,
                              why=plan["expect"].get("why", ""),
                              reference_mode=("kernel" if kernel_reference
                                              else "default"))
                runs.append(result)
    except CannotRun as e:
        print(f"adversarial: cannot run {args.vibegemm_run!r}: {e}")
        return 2
    except NoGpu as e:
        print(f"adversarial: vibegemm-run found no GPU, nothing was checked "
              f"({e})")
        return EXIT_NO_GPU

    cheat, cheat_kernel, control = (counts["cheat"], counts["cheat_kernel"],
                                    counts["control"])
    print(f"adversarial: caught {cheat[0]} of {cheat[1]} cheating kernels; "
          f"with --reference=kernel caught {cheat_kernel[0]} of "
          f"{cheat_kernel[1]}; controls passed {control[0]} of {control[1]}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"vibegemm_run": args.vibegemm_run,
                       "timeout": args.timeout, "runs": runs,
                       "summary": counts}, f, indent=2)
            f.write("\n")
    ok = all(c[0] == c[1] for c in counts.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
