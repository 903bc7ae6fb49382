#!/usr/bin/env python3
"""Block-tile sweep of the mma.sync and FFMA kernels through the product's
own LLM loop.

Runs on the GPU machine (repo root, after ``source utils/gpu/env.sh``).  For
each problem it takes the built-in schedule, writes one variant per
configuration (block tile, then warps of ``transform.vibegemm.gemm_to_mma_sync``
or the thread tile of ``transform.vibegemm.gemm_to_ffma``, block_k, stages)
as a scripted reply of the fake LLM server, and lets ``vibegemm-opt
--llm-schedule ... measure=on`` verify and time every candidate on the GPU
beside cuBLAS.  Prints one line per candidate and copies each report.json to
OUTDIR.

    utils/gpu/tc-sweep.py OUTDIR PROBLEM [PROBLEM...]

PROBLEM is a benchmark problem name (python/bench/problems.py), e.g.
l1_square_bf16, optionally followed by its own configurations:
``l1_large_k_bf16:128,256,2,4,32,4,128;128,128,2,2,32,4,64``.  A
configuration is, by the built-in schedule's kernel op:

- gemm_to_mma_sync: bm,bn,wm,wn,block_k,stages[,split_factor]
- gemm_to_ffma: bm,bn,thread_m,thread_n,block_k,stages[,split_factor]
- gemm_to_wgmma: bm,bn,consumers,stages[,split_factor[,group[,persistent_blocks[,cluster_rows[,tma_store[,ping_pong[,tma_load_residual]]]]]]]

(a split factor only replaces one the built-in schedule already has, and 0
leaves it; a group above 1 adds ``transform.vibegemm.group_blocks`` with
that group on the GEMM's launch). ``file:PATH`` takes a whole
``transform.named_sequence`` from PATH as it is (e.g. an older built-in
schedule, to race it against the current one in the same run).

TF32 on wgmma: with TC_F32_PRECISION=tf32 the f32 problems compile with
``f32-precision=tf32`` (the built-in candidate is then mma.sync TF32, and
cuBLAS runs in TF32), and a configuration written ``w:bm,bn,consumers,stages``
takes the bf16 twin's built-in wgmma schedule with
``f32_precision = "tf32"`` on ``gemm_to_wgmma`` (both operands must be
K-major: the nn.Linear problems).
Without any, CONFIGS (mma.sync) or FFMA_CONFIGS (f32) below, or
TC_CONFIGS="cfg;cfg...".
"""

import dataclasses
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "bench"))
import problems  # noqa: E402

OPT = "build/bin/vibegemm-opt"
# The benchmark's target: sm_90a, where bf16 takes wgmma (TC_TARGET=sm_90
# for the portable mma.sync path).
TARGET = os.environ.get("TC_TARGET", "sm_90a")
CONFIGS = [
    (128, 128, 2, 2, 32, 4),
    (128, 128, 2, 2, 64, 3),
    (128, 256, 2, 4, 32, 4),
    (256, 128, 4, 2, 32, 4),
    (128, 256, 2, 4, 64, 3),
    (128, 128, 2, 2, 32, 3),
    (128, 128, 2, 4, 32, 4),
]
# f32: (bm, bn, thread_m, thread_n, block_k, stages).
FFMA_CONFIGS = [
    (128, 128, 8, 8, 8, 4),
    (128, 128, 8, 8, 32, 2),
    (128, 128, 8, 8, 16, 4),
    (128, 128, 8, 8, 8, 3),
    (128, 64, 8, 8, 16, 3),
    (64, 128, 8, 8, 16, 3),
    (128, 256, 8, 16, 8, 3),
    (256, 128, 16, 8, 8, 3),
]


def builtin_sequence(src):
    out = subprocess.run([OPT, "--vibegemm-form-dispatches",
                          f"--vibegemm-builtin-schedule=target={TARGET}", src],
                         check=True, capture_output=True, text=True).stdout
    start = out.index("transform.named_sequence @")
    end = out.index("transform.yield", start)
    end = out.index("}", end) + 1
    return out[start:end]


def tf32_wgmma_sequence(p, work):
    """The bf16 twin's built-in (wgmma) sequence, renamed for `p`."""
    twin = dataclasses.replace(p, dtype="bf16")
    src = os.path.join(work, "twin.mlir")
    with open(src, "w") as f:
        f.write(problems.mlir(twin))
    seq = builtin_sequence(src).replace(twin.name, p.name)
    if "gemm_to_wgmma" not in seq:
        raise SystemExit(f"{twin.name}: the built-in schedule is not wgmma")
    return seq


def with_tf32(seq):
    """`seq` with gemm_to_wgmma asking for TF32."""
    return re.sub(r"(gemm_to_wgmma %\w+) \{", r'\1 {f32_precision = "tf32", ', seq, count=1)


def variant(seq, cfg):
    bm, bn = cfg[:2]
    for name, value in (("block_m", bm), ("block_n", bn)):
        # The knob's options must hold the value it selects.
        def select(m, value=value):
            options = sorted({int(o) for o in m.group(2).split(",")} | {value})
            return f'{m.group(1)}{value} : i64 from options = [{", ".join(map(str, options))}]'
        seq = re.sub(rf'(knob<"{name}"> = )\d+ : i64 from options = \[([^\]]*)\]',
                     select, seq)
    if "gemm_to_wgmma" in seq:
        consumers, st = cfg[2:4]
        if len(cfg) > 4 and cfg[4]:
            seq = re.sub(r"split_factor = \d+", f"split_factor = {cfg[4]}", seq)
        if len(cfg) > 5 and cfg[5] > 1:
            seq = re.sub(r"( *)(%\w+) = transform\.gpu\.map_forall_to_blocks [^\n]*\n",
                         lambda m: m.group(0) + f"{m.group(1)}transform.vibegemm.group_blocks "
                         f"{m.group(2)} {{group = {cfg[5]}}} : !transform.any_op\n", seq, count=1)
        persistent = (f", persistent_blocks = {cfg[6]} : i64"
                      if len(cfg) > 6 and cfg[6] else "")
        cluster = len(cfg) > 7 and cfg[7] > 1
        if cluster:
            persistent += f", cluster_rows = {cfg[7]} : i64"
        if len(cfg) > 8 and cfg[8]:
            persistent += ", tma_store"
        if len(cfg) > 9 and cfg[9]:
            persistent += ", ping_pong"
        if len(cfg) > 10 and cfg[10]:
            persistent += ", tma_load_residual"
        seq = re.sub(r"(gemm_to_wgmma %\w+)( \{[^}]*\})?( :)",
                     rf"\1 {{consumers = {consumers} : i64, stages = {st} : i64{persistent}}}\3", seq)
        if cluster:
            # Clusters pair blocks by y before group_blocks renumbers them.
            groups = re.findall(r" *transform\.vibegemm\.group_blocks [^\n]*\n", seq)
            seq = re.sub(r" *transform\.vibegemm\.group_blocks [^\n]*\n", "", seq)
            seq = re.sub(r"( *%\w+ = transform\.vibegemm\.gemm_to_wgmma [^\n]*\n)",
                         lambda m: m.group(1) + "".join(groups), seq, count=1)
        return seq
    wm, wn, bk, st = cfg[2:6]
    if len(cfg) > 6:
        seq = re.sub(r"split_factor = \d+", f"split_factor = {cfg[6]}", seq)
    if "gemm_to_ffma" in seq:
        # The printed op leaves out attributes at their defaults.
        return re.sub(r"(gemm_to_ffma %\w+)( \{[^}]*\})?( :)",
                      rf"\1 {{block_k = {bk} : i64, stages = {st} : i64, thread_tile = array<i64: {wm}, {wn}>}}\3",
                      seq)
    return re.sub(r"(gemm_to_mma_sync %\w+) \{[^}]*\}",
                  rf"\1 {{block_k = {bk} : i64, stages = {st} : i64, warps = array<i64: {wm}, {wn}>}}",
                  seq)


def main():
    dest, names = sys.argv[1], sys.argv[2:]
    os.makedirs(dest, exist_ok=True)
    by_name = {p.name: p for p in problems.suite()}
    # A leading "w:" marks a TF32 wgmma configuration, "file:" a sequence
    # taken verbatim (see above).
    def parse(text):
        return [(False, c) if c.startswith("file:") else
                (c.startswith("w:"),) + tuple(int(v) for v in c.removeprefix("w:").split(","))
                for c in text.split(";")]
    for arg in names:
        name, _, own = arg.partition(":")
        p = by_name[name]
        configs = [(False,) + c for c in (FFMA_CONFIGS if name.endswith("_f32") else CONFIGS)]
        if own:
            configs = parse(own)
        elif os.environ.get("TC_CONFIGS"):
            configs = parse(os.environ["TC_CONFIGS"])
        work = f"/tmp/sweep/{name}"
        os.makedirs(work, exist_ok=True)
        src = os.path.join(work, "input.mlir")
        with open(src, "w") as f:
            f.write(problems.mlir(p))
        seq = builtin_sequence(src)
        responses = []
        for i, (tf32_wgmma, *cfg) in enumerate(configs):
            if isinstance(cfg[0], str):
                text = open(cfg[0].removeprefix("file:")).read()
            else:
                text = (with_tf32(variant(tf32_wgmma_sequence(p, work), cfg)) if tf32_wgmma
                        else variant(seq, cfg))
            with open(os.path.join(work, f"reply{i}.txt"), "w") as f:
                f.write(f"Variant {cfg}.\n\n```mlir\n{text}\n```\n")
            responses.append({"content_file": f"reply{i}.txt"})
        with open(os.path.join(work, "scenario.json"), "w") as f:
            json.dump({"responses": responses}, f)
        art = os.path.join(work, "artifacts")
        cmd = ["python3", "test/lib/fake_llm_server.py", "--script", os.path.join(work, "scenario.json"), "--",
               OPT, src, f"--llm-schedule=endpoint={{endpoint}} rounds=1 candidates={len(configs)} "
               f"target={TARGET} cache-dir=off measure={os.environ.get('TC_MEASURE', 'on')} artifacts-dir={art}"
               + (f" f32-precision={os.environ['TC_F32_PRECISION']}" if os.environ.get("TC_F32_PRECISION") else ""),
               "-o", os.path.join(work, "out.mlir")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print(f"{name}: llm-schedule failed: {r.stderr[-2000:]}")
            continue
        report = json.load(open(os.path.join(art, "report.json")))
        with open(os.path.join(dest, f"{name}.report.json"), "w") as f:
            json.dump(report, f, indent=1)
        for d in report["dispatches"]:
            # LLM candidates answer the configurations in order; the others
            # (builtin, db, builtin-variant) are named by their source.
            llm = iter(configs)
            for c in d["candidates"]:
                m = c.get("measurement", {})
                cub = m.get("cublas", {}).get("time_ms")
                cfg = next(llm, "?") if c.get("source") == "llm" else c.get("source")
                print(f"{name} {d['name']} cand {c['index']} {cfg}: {c['status']} "
                      f"{c.get('time_ms') or c.get('estimated_ms') or 0:.4f} ms ({c.get('timing')}) regs {c.get('registers')} "
                      f"smem {c.get('shared_bytes')} cuBLAS {cub} {c.get('diagnostic', '')[:200]}")


if __name__ == "__main__":
    main()
