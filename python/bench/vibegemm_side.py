"""The vibegemm column: compile a problem with vibegemm-opt, run its plan with vibegemm-run.

Compiling needs no GPU (the built-in scheduler ranks nothing by time), so it
runs on the build machine; ``run_plan`` runs on the GPU machine.  Both
record what happened, failures included, and never make numbers up.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time

STDERR_TAIL = 4000  # characters of stderr kept per command


def _tail(text, n=STDERR_TAIL):
    return text if len(text) <= n else "..." + text[-n:]


def first_error(stderr):
    """The first ``error:`` line of a diagnostic dump, else its last line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln:
            return ln
    return lines[-1] if lines else ""


def _dispatch_summary(report_path):
    """Per dispatch: the schedule the built-in scheduler chose and ptxas's verdict."""
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    out = []
    for d in report.get("dispatches", []):
        sched = d.get("builtin_schedule") or {}
        cands = d.get("candidates") or [{}]
        win = cands[d.get("winner", 0) or 0] if cands else {}
        out.append({
            "name": d.get("name"),
            "schedule": sched.get("kind"),
            "why_not_staged": sched.get("why_not_staged"),
            "block": sched.get("block"),
            "thread": sched.get("thread"),
            "split_m": sched.get("split_m"),
            "split_n": sched.get("split_n"),
            "warps": sched.get("warps"),
            "stages": sched.get("stages"),
            "split_k": sched.get("split_k"),
            "kernels": len(win.get("kernels") or []),
            "registers": win.get("registers"),
            "spill_bytes": win.get("spill_bytes"),
            "shared_bytes": win.get("shared_bytes"),
            "estimated_ms": win.get("estimated_ms"),
        })
    return out


def find_plan(artifacts, function):
    """The plan that runs the whole problem, relative to ``artifacts``.

    vibegemm-opt writes ``<dispatch>.plan.json`` per dispatch and, only for
    functions that call several dispatches, ``<function>.plan.json``; the
    latter wins.  ``*.reference.plan.json`` files hold the reference kernels
    vibegemm-run checks against; they are never the plan to time.
    Returns (file name or None, why not found).
    """
    if not os.path.isdir(artifacts):
        return None, "no artifacts directory"
    whole = function + ".plan.json"
    if os.path.exists(os.path.join(artifacts, whole)):
        return whole, ""
    plans = sorted(f for f in os.listdir(artifacts)
                   if f.endswith(".plan.json") and not f.endswith(".reference.plan.json"))
    if len(plans) == 1:
        return plans[0], ""
    if not plans:
        return None, "no plan in the artifacts"
    return None, "several dispatch plans and no whole-function plan: " + ", ".join(plans)


def compile_problem(p, mlir_text, pdir, vibegemm_opt, timeout, target="sm_90a",
                    f32_precision="ieee", programmatic_launch=False):
    """Write ``pdir``/input.mlir, compile it, write and return compile.json."""
    os.makedirs(pdir, exist_ok=True)
    src = os.path.join(pdir, "input.mlir")
    with open(src, "w") as f:
        f.write(mlir_text)
    artifacts = os.path.join(pdir, "artifacts")
    out = os.path.join(pdir, "out.mlir")
    # Stale artifacts from an earlier compile would pass for this one's.
    for d in (artifacts,):
        if os.path.isdir(d):
            for name in os.listdir(d):
                os.remove(os.path.join(d, name))
    if os.path.exists(out):
        os.remove(out)
    cmd = [vibegemm_opt,
           f"--llm-schedule=artifacts-dir={artifacts} measure=off target={target}"
           + (f" f32-precision={f32_precision}" if f32_precision != "ieee" else "")
           + (" programmatic-launch=true" if programmatic_launch else ""),
           src, "-o", out]
    rec = {"problem": p.name, "command": shlex.join(cmd), "timeout_s": timeout}
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rec["seconds"] = round(time.monotonic() - t0, 3)
        rec["returncode"] = r.returncode
        rec["status"] = "ok" if r.returncode == 0 else "error"
        rec["stderr"] = _tail(r.stderr)
        if r.returncode != 0:
            rec["first_error"] = first_error(r.stderr)
    except subprocess.TimeoutExpired as e:
        rec["seconds"] = round(time.monotonic() - t0, 3)
        rec["status"] = "timeout"
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        rec["stderr"] = _tail(err)
        rec["first_error"] = f"no result after {timeout} s"
    except OSError as e:
        rec["seconds"] = round(time.monotonic() - t0, 3)
        rec["status"] = "error"
        rec["first_error"] = f"cannot run {vibegemm_opt}: {e}"
    if rec["status"] == "ok":
        plan, why = find_plan(artifacts, p.name)
        rec["plan"] = plan
        if plan is None:
            rec["status"] = "no-plan"
            rec["first_error"] = why
        rec["dispatches"] = _dispatch_summary(os.path.join(artifacts, "report.json"))
    with open(os.path.join(pdir, "compile.json"), "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    return rec


def _parse_json_stdout(stdout):
    """The one JSON object vibegemm-run prints, tolerating stray lines."""
    text = stdout.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        return json.loads(text[start:end + 1])
    except ValueError:
        return None


def run_plan(vibegemm_run, plan_path, timeout, extra_args=()):
    """Run one plan with ``vibegemm-run --json --compare=cublas``.

    Returns a record holding the tool's JSON under ``"result"`` as printed
    (status, outputs, time_ms, tflops, cublas ...), or why there is none.
    """
    cmd = [vibegemm_run, "--json", "--compare=cublas", *extra_args, plan_path]
    rec = {"command": shlex.join(cmd), "timeout_s": timeout}
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        rec["wall_s"] = round(time.monotonic() - t0, 3)
        rec["status"] = "harness-timeout"
        rec["diagnostic"] = f"vibegemm-run gave no result in {timeout} s"
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        rec["stderr"] = _tail(err)
        return rec
    except OSError as e:
        rec["wall_s"] = round(time.monotonic() - t0, 3)
        rec["status"] = "harness-error"
        rec["diagnostic"] = f"cannot run {vibegemm_run}: {e}"
        return rec
    rec["wall_s"] = round(time.monotonic() - t0, 3)
    rec["returncode"] = r.returncode
    rec["stderr"] = _tail(r.stderr)
    result = _parse_json_stdout(r.stdout)
    if result is None or not isinstance(result, dict):
        rec["status"] = "harness-error"
        rec["diagnostic"] = "no JSON object on vibegemm-run's stdout"
        rec["stdout"] = _tail(r.stdout)
        return rec
    rec["result"] = result
    rec["status"] = result.get("status", "unknown")
    rec["diagnostic"] = result.get("diagnostic", "")
    return rec
