#!/usr/bin/env python3
"""Benchmark harness CLI: compile the suite, run it on a GPU, write the report.

Three stages, so compiling (no GPU needed) happens on the build machine and
the GPU machine only runs:

  bench.py compile --out DIR     write DIR/<problem>/input.mlir, compile it
                                 with vibegemm-opt --llm-schedule, record
                                 DIR/<problem>/compile.json
  bench.py run --out DIR --vibegemm-run PATH
                                 per problem: vibegemm-run on the plan, then
                                 cuBLAS, PyTorch eager and torch.compile;
                                 DIR/results.json after every problem
  bench.py report --out DIR --dest docs/benchmarks/NAME
                                 results.json, table.md, plot.png, README.md

See docs/benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import problems  # noqa: E402
import vibegemm_side  # noqa: E402

DEFAULT_OPT = os.path.join(ROOT, "build", "bin", "vibegemm-opt")
# A level-2 problem's folder holds its GEMM alone, compiled, in this folder.
GEMM_ALONE = "gemm-alone"


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def select(only, dtypes):
    """The suite filtered by a name regex and a dtype list."""
    want = [d.strip() for d in dtypes.split(",") if d.strip()]
    for d in want:
        if d not in problems.DTYPES:
            sys.exit(f"bench: unknown dtype {d!r} (expected {', '.join(problems.DTYPES)})")
    rx = re.compile(only) if only else None
    return [p for p in problems.suite()
            if p.dtype in want and (rx is None or rx.search(p.name))]


def git_describe():
    """The source commit (and whether the tree was dirty), if git is there."""
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain"],
                               capture_output=True, text=True, timeout=30)
        if head.returncode != 0:
            return None
        return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def problem_record(p):
    d = dataclasses.asdict(p)
    d.update(name=p.name, flops=p.flops, min_bytes=p.min_bytes, what=p.describe())
    return d


def write_json(path, obj):
    """Write through a temporary file so a kill never leaves half a file."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# compile


def cmd_compile(args):
    opt = os.path.abspath(args.vibegemm_opt)
    if not os.path.exists(opt):
        sys.exit(f"bench: vibegemm-opt not found at {opt} (build it, or pass --vibegemm-opt)")
    chosen = select(args.only, args.dtypes)
    if not chosen:
        sys.exit("bench: no problem matches")
    os.makedirs(args.out, exist_ok=True)
    log(f"compiling {len(chosen)} problems into {args.out} with {opt} ({args.jobs} at a time)")

    def one(p):
        pdir = os.path.join(args.out, p.name)
        rec = vibegemm_side.compile_problem(
            p, problems.mlir(p), pdir, opt, args.timeout,
            args.target, args.f32_precision, args.programmatic_launch)
        extra = f": {rec.get('first_error')}" if rec["status"] != "ok" else f" -> {rec.get('plan')}"
        log(f"{p.name}: {rec['status']} in {rec['seconds']:.1f} s{extra}")
        if p.level == 2:
            # The chain's GEMM alone (same shapes and layouts, no bias or
            # epilogue), so the run can say what fusing the epilogue costs.
            alone = problems.gemm_alone(p)
            arec = vibegemm_side.compile_problem(
                alone, problems.mlir(alone), os.path.join(pdir, GEMM_ALONE), opt,
                args.timeout, args.target, args.f32_precision, args.programmatic_launch)
            log(f"{p.name} (GEMM alone): {arec['status']} in {arec['seconds']:.1f} s")
        return rec

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        recs = list(pool.map(one, chosen))
    # Merge with an earlier compile of other problems into the same DIR.
    summary_path = os.path.join(args.out, "compile-summary.json")
    old = {}
    if os.path.exists(summary_path):
        try:
            with open(summary_path) as f:
                old = {r["problem"]: r for r in json.load(f).get("problems", [])}
        except (OSError, ValueError, KeyError):
            old = {}
    for r in recs:
        old[r["problem"]] = {k: r.get(k) for k in
                             ("problem", "status", "seconds", "first_error", "plan")}
    order = [p.name for p in problems.suite()]
    summary = {
        "created": now_iso(),
        "command": shlex.join([sys.executable, *sys.argv]),
        "vibegemm_opt": opt,
        "source": git_describe(),
        "problems": sorted(old.values(), key=lambda r: order.index(r["problem"])
                           if r["problem"] in order else len(order)),
    }
    write_json(summary_path, summary)
    ok = sum(r["status"] == "ok" for r in recs)
    log(f"{ok}/{len(recs)} compiled in {time.monotonic() - t0:.0f} s; summary in {summary_path}")
    return 0


# --------------------------------------------------------------------------
# run


def cmd_run(args):
    import torch_side  # torch is only needed here

    chosen = select(args.only, args.dtypes)
    if not chosen:
        sys.exit("bench: no problem matches")
    results_path = os.path.join(args.out, "results.json")
    extra = shlex.split(args.vibegemm_run_args or "")
    done = []
    if args.resume:
        old = _read_json(results_path) or {}
        done = [r for r in old.get("problems", []) if r.get("finished")]
        names = {r["problem"]["name"] for r in done}
        if names:
            log(f"resuming: {len(names)} problems already in {results_path}")
        chosen = [p for p in chosen if p.name not in names]
    env = torch_side.environment()
    results = {
        "version": 1,
        "created": now_iso(),
        "command": shlex.join([sys.executable, *sys.argv]),
        "environment": env,
        "config": {"iters": args.iters, "warmup": args.warmup,
                   "torch_compile": not args.no_compile_torch,
                   "max_autotune": not args.no_compile_torch and not args.no_max_autotune,
                   "run_timeout_s": args.run_timeout, "time_budget_s": args.time_budget,
                   "vibegemm_run": args.vibegemm_run, "vibegemm_run_args": extra,
                   "timing": torch_side.TIMING_NOTE},
        "compile": _read_json(os.path.join(args.out, "compile-summary.json")),
        "problems": done,
        "skipped": [],
        "finished": False,
    }
    write_json(results_path, results)
    t0 = time.monotonic()
    for i, p in enumerate(chosen):
        if args.time_budget and time.monotonic() - t0 > args.time_budget:
            left = [q.name for q in chosen[i:]]
            log(f"time budget of {args.time_budget} s spent; not started: {', '.join(left)}")
            results["skipped"] = left
            break
        log(f"[{i + 1}/{len(chosen)}] {p.name}")
        rec = {"problem": problem_record(p), "started": now_iso()}
        pdir = os.path.join(args.out, p.name)
        comp = _read_json(os.path.join(pdir, "compile.json"))
        rec["compile"] = ({k: comp.get(k) for k in ("status", "seconds", "first_error",
                                                    "plan", "dispatches")}
                          if comp else {"status": "not-compiled"})
        if comp and comp.get("status") == "ok" and comp.get("plan"):
            plan = os.path.join(pdir, "artifacts", comp["plan"])
            rec["vibegemm"] = vibegemm_side.run_plan(args.vibegemm_run, plan,
                                                     args.run_timeout, extra)
        else:
            rec["vibegemm"] = {"status": "not-compiled",
                               "diagnostic": (comp or {}).get("first_error", "no compile.json")}
        vg = rec["vibegemm"]
        log(f"  vibegemm: {vg['status']} {_ms(vg)}")
        alone = _read_json(os.path.join(pdir, GEMM_ALONE, "compile.json"))
        if alone and alone.get("status") == "ok" and alone.get("plan"):
            plan = os.path.join(pdir, GEMM_ALONE, "artifacts", alone["plan"])
            rec["vibegemm_gemm_alone"] = vibegemm_side.run_plan(
                args.vibegemm_run, plan, args.run_timeout, extra)
            log(f"  vibegemm, GEMM alone: {rec['vibegemm_gemm_alone']['status']} "
                f"{_ms(rec['vibegemm_gemm_alone'])}")
        # PyTorch columns after vibegemm-run so the child finds the memory free.
        rec.update(torch_side.measure(p, iters=args.iters, warmup=args.warmup,
                                      compile_torch=not args.no_compile_torch,
                                      max_autotune=not args.no_max_autotune, log=log))
        rec["finished"] = now_iso()
        results["problems"].append(rec)
        write_json(results_path, results)
    results["finished"] = True
    results["wall_s"] = round(time.monotonic() - t0, 1)
    write_json(results_path, results)
    log(f"results in {results_path}")
    return 0


def _ms(vg):
    r = vg.get("result") or {}
    t = r.get("time_ms")
    return f"{t:.4f} ms" if isinstance(t, (int, float)) else (vg.get("diagnostic") or "")[:200]


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# --------------------------------------------------------------------------
# report


def cmd_report(args):
    import report

    runs = []
    for d in args.out:
        src = d if d.endswith(".json") else os.path.join(d, "results.json")
        results = _read_json(src)
        if results is None:
            sys.exit(f"bench: cannot read {src}")
        runs.append(results)
    paths = report.write_all(report.merge(runs), args.dest, reproduce_gpu=args.reproduce,
                             name=args.name)
    for p in paths:
        log(f"wrote {p}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="stage", required=True)

    def common(sp):
        sp.add_argument("--out", required=True, help="the bench directory (one folder per problem)")
        sp.add_argument("--only", help="regex on problem names, e.g. 'l1_square|l2_'")
        sp.add_argument("--dtypes", default="f32,bf16", help="comma list (default f32,bf16)")

    c = sub.add_parser("compile", help="write the MLIR and compile it (no GPU)")
    common(c)
    c.add_argument("--vibegemm-opt", default=DEFAULT_OPT, help=f"default {DEFAULT_OPT}")
    c.add_argument("--timeout", type=float, default=600, help="seconds per problem (600)")
    c.add_argument("--target", default="sm_90a",
                   help="GPU architecture (default sm_90a: the H100/H200's wgmma path; "
                        "sm_90 for portable PTX)")
    c.add_argument("--jobs", "-j", type=int, default=1, help="compiles at a time (1)")
    c.add_argument("--f32-precision", default="ieee", choices=["ieee", "tf32", "3xtf32"],
                   help="what f32 GEMMs may use (default ieee; TF32 changes accuracy, "
                        "and vibegemm-run then races cuBLAS in TF32)")
    c.add_argument("--programmatic-launch", action="store_true",
                   help="kernels of a plan overlap the one before them "
                        "(llm-schedule's programmatic-launch; not yet timed)")
    c.set_defaults(fn=cmd_compile)

    r = sub.add_parser("run", help="time vibegemm, cuBLAS, eager, torch.compile, max-autotune (GPU)")
    common(r)
    r.add_argument("--vibegemm-run", required=True, help="path of the vibegemm-run binary")
    r.add_argument("--vibegemm-run-args", default="",
                   help="extra arguments for vibegemm-run, one shell-quoted string")
    r.add_argument("--iters", type=int, default=50, help="timed runs per column (50)")
    r.add_argument("--warmup", type=int, default=5, help="untimed runs first (5)")
    r.add_argument("--run-timeout", type=float, default=300,
                   help="seconds for one vibegemm-run (300)")
    r.add_argument("--time-budget", type=float, default=0,
                   help="start no new problem after this many seconds (0: no limit)")
    r.add_argument("--no-compile-torch", action="store_true",
                   help="skip torch.compile (and max-autotune)")
    r.add_argument("--no-max-autotune", action="store_true",
                   help="skip torch.compile(mode='max-autotune') on bf16/f16 rows "
                        "(Inductor benchmarks Triton's GEMM templates: minutes a problem)")
    r.add_argument("--resume", action="store_true",
                   help="keep the problems DIR/results.json already holds; run the rest")
    r.set_defaults(fn=cmd_run)

    p = sub.add_parser("report", help="results.json -> table.md, plot.png, README.md")
    p.add_argument("--out", required=True, action="append",
                   help="bench directory (or results.json) of a run; repeat to merge runs "
                        "split over several GPU calls (later ones win per problem)")
    p.add_argument("--dest", required=True, help="e.g. docs/benchmarks/h200-2026-12-02")
    p.add_argument("--reproduce", default=None,
                   help="the exact GPU-side command, for the README's REPRODUCE-GPU line")
    p.add_argument("--name", default=None, help="title of the README (default: dest's name)")
    p.set_defaults(fn=cmd_report)

    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
