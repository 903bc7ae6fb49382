"""Turn a bench run's results.json into table.md, plot.png and a README.md.

The table puts each problem's vibegemm time beside cuBLAS, PyTorch eager,
torch.compile and (bf16/f16 rows) torch.compile max-autotune, and beside
its roofline; ratios are other / vibegemm, so
above 1 means vibegemm is faster.  Ratios exist only where vibegemm's
result was checked correct.
"""

from __future__ import annotations

import json
import math
import os
import shlex

# Per GPU: dense peaks (no sparsity; f32 without TF32) and the memory
# bandwidth a copy reaches in practice, below the datasheet's (H200 4.8 TB/s
# HBM3e: about 4.3 TB/s measured here, so 4.0; H100 SXM 3.35 TB/s HBM3:
# about 3.0 measured). A device this table lacks is taken as an H200.
DEVICES = {
    "H200": {"bf16": 989e12, "f32": 67e12, "bandwidth": 4.0e12, "datasheet": "4.8"},
    "H100": {"bf16": 989e12, "f32": 67e12, "bandwidth": 3.0e12, "datasheet": "3.35"},
}
PLACEHOLDER = "<filled in by the run>"
COLUMNS = [("cublas", "cuBLAS"), ("eager", "eager"), ("torch_compile", "torch.compile"),
           ("max_autotune", "max-autotune")]
SERIES_COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40)]


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fmt(x, digits=4):
    """Numbers with ``digits`` significant digits, '–' for none."""
    if not _num(x):
        return "–"
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def device_of(results):
    """The DEVICES key of the GPU a run used ("H200" when unknown)."""
    name = (((results or {}).get("environment") or {}).get("device") or {}).get("name", "")
    return next((key for key in DEVICES if key in name), "H200")


def roofline_ms(prob, device="H200"):
    """max(FLOPs / peak, bytes / bandwidth) in ms on `device`, and which bound."""
    facts = DEVICES[device]
    c = prob["flops"] / facts[prob["dtype"]]
    m = prob["min_bytes"] / facts["bandwidth"]
    return (max(c, m) * 1e3, "compute" if c >= m else "memory")


def geomean(xs):
    xs = [x for x in xs if _num(x) and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def row_data(rec, device="H200"):
    """The numbers of one problem, flattened for the table and the plot."""
    prob = rec["problem"]
    comp = rec.get("compile") or {}
    vg = rec.get("vibegemm") or {}
    res = vg.get("result") or {}
    d = {"prob": prob, "notes": []}
    if comp.get("status") not in ("ok", None):
        d["status"] = "compile " + ("timeout" if comp["status"] == "timeout" else "error")
        d["notes"].append(comp.get("first_error") or comp["status"])
    else:
        d["status"] = vg.get("status", "not run")
        if d["status"] != "ok" and (vg.get("diagnostic") or res.get("diagnostic")):
            d["notes"].append(vg.get("diagnostic") or res.get("diagnostic"))
    d["vg_ms"] = res.get("time_ms") if _num(res.get("time_ms")) else None
    tf = res.get("tflops")
    if not _num(tf) and d["vg_ms"]:
        tf = prob["flops"] / (d["vg_ms"] * 1e-3) / 1e12
    d["vg_tflops"] = tf if _num(tf) else None
    d["vg_method"] = (res.get("timing") or {}).get("method")
    for key, _ in COLUMNS:
        col = rec.get(key) or {}
        ms = col.get("time_ms") if col.get("status") == "ok" else None
        d[key + "_ms"] = ms if _num(ms) else None
        d[key + "_graph"] = (col.get("timing") or {}).get("method") == "cuda-graph-replay"
        ok = d["status"] == "ok" and d["vg_ms"] and d[key + "_ms"]
        d[key + "_ratio"] = d[key + "_ms"] / d["vg_ms"] if ok else None
        if col.get("status") == "error":
            d["notes"].append(f"{dict(COLUMNS)[key]}: {col.get('error', '')[:200]}")
    for key, name in COLUMNS[2:]:
        tc = rec.get(key) or {}
        if tc.get("check") == "mismatch":
            d["notes"].append(f"{name} differs from eager: max rel err "
                              f"{tc.get('max_rel_err_vs_eager'):.3g}")
    alone = ((rec.get("vibegemm_gemm_alone") or {}).get("result") or {})
    d["alone_ms"] = (alone.get("time_ms") if alone.get("status") == "ok"
                     and _num(alone.get("time_ms")) else None)
    d["roofline_ms"], d["bound"] = roofline_ms(prob, device)
    return d


def fusion_md(rows):
    """Each level-2 chain against its own GEMM alone, both vibegemm's, so
    what fusing the epilogue costs; empty where no run timed the GEMM alone."""
    sel = [d for d in rows if d["prob"]["level"] == 2 and d["alone_ms"]
           and d["status"] == "ok" and d["vg_ms"]]
    if not sel:
        return []
    out = ["", "What fusing costs: each level-2 chain (GEMM + bias + epilogue, one "
           "kernel) against vibegemm's own GEMM alone on the same shapes (no bias, "
           "no epilogue), in the same run:", "",
           "| problem | dtype | chain ms | GEMM alone ms | chain / GEMM |",
           "|---|---|---:|---:|---:|"]
    for d in sel:
        p = d["prob"]
        out.append(f"| {p['base']} | {p['dtype']} | {fmt(d['vg_ms'])} | "
                   f"{fmt(d['alone_ms'])} | {fmt(d['vg_ms'] / d['alone_ms'], 3)} |")
    return out


def table_md(results):
    """The markdown table, geometric means and notes."""
    device = device_of(results)
    rows = [row_data(r, device) for r in results.get("problems", [])]
    out = ["| problem | dtype | M | N | K | batch | roofline ms | vibegemm ms | status | "
           "TFLOP/s | cuBLAS ms | eager ms | torch.compile ms | max-autotune ms | "
           "cuBLAS/vibegemm | eager/vibegemm | compile/vibegemm | autotune/vibegemm |",
           "|---|---|" + "---:|" * 6 + "---|" + "---:|" * 9]
    notes = []
    for d in rows:
        p = d["prob"]
        status = d["status"]
        if d["notes"]:
            notes.append((p["name"], d["notes"]))
            status += f" [{len(notes)}]"

        def ms(key):
            s = fmt(d[key + "_ms"])
            return s + "\\*" if d[key + "_graph"] and d[key + "_ms"] else s

        out.append("| " + " | ".join([
            p["base"], p["dtype"], str(p["m"]), str(p["n"]), str(p["k"]), str(p["batch"]),
            fmt(d["roofline_ms"]) + (" (m)" if d["bound"] == "memory" else ""),
            fmt(d["vg_ms"]), status, fmt(d["vg_tflops"], 3),
            ms("cublas"), ms("eager"), ms("torch_compile"), ms("max_autotune"),
            fmt(d["cublas_ratio"], 3), fmt(d["eager_ratio"], 3),
            fmt(d["torch_compile_ratio"], 3), fmt(d["max_autotune_ratio"], 3)]) + " |")
    out += ["", "Geometric means of the ratios (other / vibegemm; above 1: vibegemm faster), "
            "over the problems where vibegemm ran and checked correct:", "",
            "| level | dtype | cuBLAS/vibegemm | eager/vibegemm | compile/vibegemm | "
            "autotune/vibegemm |",
            "|---|---|---:|---:|---:|---:|"]
    for level in (0, 1, 2):
        for dtype in ("f32", "bf16"):
            sel = [d for d in rows if d["prob"]["level"] == level and d["prob"]["dtype"] == dtype]
            if not sel:
                continue
            cells = []
            for key, _ in COLUMNS:
                vals = [d[key + "_ratio"] for d in sel if d[key + "_ratio"]]
                g = geomean(vals)
                cells.append(f"{fmt(g, 3)} ({len(vals)} of {len(sel)})")
            out.append(f"| {level} | {dtype} | " + " | ".join(cells) + " |")
    out += fusion_md(rows)
    facts = DEVICES[device]
    out += ["", f"Roofline: the larger of FLOPs / peak ({device} dense: bf16 "
            f"{facts['bf16'] / 1e12:.0f} TFLOP/s, f32 without TF32 {facts['f32'] / 1e12:.0f} "
            "TFLOP/s) and the bytes of the inputs and the output, each moved once, over "
            f"{facts['bandwidth'] / 1e12:.1f} TB/s (the datasheet's {facts['datasheet']} TB/s "
            "is not reached in practice); (m) marks memory-bound problems. FLOPs are 2·M·N·K per batch, "
            "epilogues not counted. \\* marks PyTorch times taken as CUDA-graph replays "
            "(runs under 10 µs)."]
    if notes:
        out += ["", "Notes:", ""]
        for i, (name, ns) in enumerate(notes, 1):
            text = "; ".join(n.replace("\n", " ").replace("|", "\\|") for n in ns)
            out.append(f"{i}. `{name}`: {text}")
    return "\n".join(out) + "\n"


def plot(results, path):
    """plot.png: each column's speed relative to cuBLAS per problem, log scale.

    Returns which renderer drew it ("matplotlib" or "builtin").
    """
    rows = [row_data(r, device_of(results)) for r in results.get("problems", [])]
    labels, vals = [], []
    for d in rows:
        cb = d["cublas_ms"]
        labels.append(f"{d['prob']['base']} {d['prob']['dtype']}")
        vg = d["vg_ms"] if d["status"] == "ok" else None
        vals.append([cb / t if cb and t else None
                     for t in (vg, d["eager_ms"], d["torch_compile_ms"],
                               d["max_autotune_ms"])])
    series = ["vibegemm", "PyTorch eager", "torch.compile", "max-autotune"]
    title = "speed relative to cuBLAS (cuBLAS time / time; log scale; 1 = cuBLAS)"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        import png
        png.bar_chart(path, title, list(zip(labels, vals)), series, SERIES_COLORS)
        return "builtin"
    present = [x for v in vals for x in v if x]
    lo, hi = 1e-3, 10.0
    if present:  # whole decades around every value, at least 1e-3 .. 10
        lo = min(lo, 10.0 ** math.floor(math.log10(min(present))))
        hi = max(hi, 10.0 ** math.ceil(math.log10(max(present))))
    n = len(labels)
    fig, ax = plt.subplots(figsize=(10, 0.42 * n + 1.6))
    h = 0.8 / len(series)
    for j, (name, col) in enumerate(zip(series, SERIES_COLORS)):
        color = [c / 255 for c in col]
        ys = [i + (j - (len(series) - 1) / 2) * h for i in range(n)]
        xs = [v[j] for v in vals]
        ax.barh([y for y, x in zip(ys, xs) if x], [x - lo for x in xs if x], left=lo,
                height=h, color=color, label=name)
        for y, x in zip(ys, xs):
            if not x:
                ax.text(lo * 1.05, y, "n/a", va="center", fontsize=6, color=color)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("cuBLAS time / time (higher is faster)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return "matplotlib"


def readme_md(results, name, reproduce_gpu, renderer, folder=None):
    """README.md of one benchmark run: reproduce commands, setup, what was measured."""
    env = results.get("environment") or {}
    dev = env.get("device") or {}
    comp = results.get("compile") or {}
    src = comp.get("source") or {}
    cfg = results.get("config") or {}
    date = (results.get("created") or "")[:10]
    gpu_line = reproduce_gpu or "REPRODUCE-GPU: " + PLACEHOLDER
    device = dev.get("name", "unknown device")
    if dev:
        device += (f" (compute capability {dev.get('compute_capability')}, "
                   f"{dev.get('sms')} SMs, {dev.get('memory_gib')} GiB)")
    lines = [
        f"# {name}",
        "",
        f"- Date: {date or 'unknown'}",
        f"- Device: {device}",
        "- Driver, max SM clock, power limit (nvidia-smi): "
        f"{env.get('nvidia_smi') or 'unknown'}",
        f"- PyTorch {env.get('torch', '?')}, CUDA {env.get('cuda', '?')}, "
        f"Python {env.get('python', '?')}",
        f"- vibegemm source: {src.get('commit', 'unknown')}"
        + (" (with uncommitted changes)" if src.get("dirty") else ""),
        f"- Plot drawn with: {renderer}",
        "",
        "Files: [table.md](table.md), [plot.png](plot.png), "
        "[results.json](results.json) (every number, status and diagnostic).",
        "",
        "## Reproduce",
        "",
        "On the build machine (Debian 12, no GPU needed):",
        "",
        "```sh",
        "./scripts/setup.sh && python3 python/bench/bench.py compile --out bench-out",
        "```",
        "",
        "On the GPU machine, over a copy of the repository carrying `build/bin`, "
        "`.dist` and `bench-out`:",
        "",
        "```sh",
        gpu_line,
        "```",
        "",
        "Then, anywhere:",
        "",
        "```sh",
        "python3 python/bench/bench.py report --out bench-out "
        f"--dest docs/benchmarks/{folder or name} --reproduce {shlex.quote(reproduce_gpu or '...')}",
        "```",
        "",
        "Commands as recorded: compile `" + (comp.get("command") or "?") + "`; run `"
        + (results.get("command") or "?") + "`.",
        "",
        "## What was measured",
        "",
        "Each problem is a KernelBench level-1 GEMM or level-2 GEMM + epilogue chain "
        "(`python/bench/problems.py` says which), in f32 and in bf16 (bf16 operands, f32 "
        "accumulation, bf16 result; epilogues computed in f32). vibegemm compiled each "
        "`input.mlir` with its built-in scheduler (`vibegemm-opt --llm-schedule`, no "
        "tuning), and `vibegemm-run --json --compare=cublas` ran the launch plan: it "
        "checks the output against a reference and reports the median time of the whole "
        "plan (all its kernels). The PyTorch columns run in one process on the same "
        "shapes, layouts and dtypes with TF32 off: cuBLAS is the GEMM alone "
        "(`torch.matmul`, `torch.bmm` or `F.linear` without bias), eager is the whole "
        "chain as KernelBench's `forward` writes it, torch.compile is that function "
        "compiled in the default mode (compile time recorded separately, its output "
        "checked loosely against eager), and on bf16/f16 rows max-autotune is it "
        "compiled with `mode=\"max-autotune\"` (Inductor benchmarks Triton's GEMM "
        "templates against cuBLAS and keeps the faster: what a PyTorch user would pick "
        f"instead). PyTorch timing: {cfg.get('timing', 'CUDA events, L2 flushed')}; "
        f"{cfg.get('iters', '?')} runs after {cfg.get('warmup', '?')} warm-ups. "
        "vibegemm-run's timing method is recorded per problem in results.json. "
        "Ratios are other / vibegemm: above 1, vibegemm is faster.",
        "",
        "## Results",
        "",
    ]
    return "\n".join(lines) + "\n" + table_md(results)


def merge(runs):
    """One results dict from several runs: the first's header, per problem the last record.

    A suite too long for one GPU call runs in parts (``--only``); their
    results.json files are merged here, in suite order.
    """
    if len(runs) == 1:
        return runs[0]
    merged = dict(runs[0])
    by_name, order = {}, []
    for run in runs:
        for rec in run.get("problems", []):
            name = rec["problem"]["name"]
            if name not in by_name:
                order.append(name)
            by_name[name] = rec
    merged["problems"] = [by_name[n] for n in order]
    ran = set(by_name)
    merged["skipped"] = sorted({s for run in runs for s in run.get("skipped", [])} - ran)
    merged["command"] = " ; ".join(r.get("command") or "?" for r in runs)
    merged["finished"] = all(r.get("finished") for r in runs)
    merged["parts"] = [{k: r.get(k) for k in ("created", "command", "environment", "config")}
                       for r in runs]
    return merged


def write_all(results, dest, reproduce_gpu=None, name=None):
    """Write results.json, table.md, plot.png and README.md into ``dest``."""
    os.makedirs(dest, exist_ok=True)
    name = name or os.path.basename(os.path.normpath(dest))
    paths = []
    rj = os.path.join(dest, "results.json")
    with open(rj, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    paths.append(rj)
    tm = os.path.join(dest, "table.md")
    with open(tm, "w") as f:
        f.write(table_md(results))
    paths.append(tm)
    pp = os.path.join(dest, "plot.png")
    renderer = plot(results, pp)
    paths.append(pp)
    rm = os.path.join(dest, "README.md")
    with open(rm, "w") as f:
        f.write(readme_md(results, name, reproduce_gpu, renderer,
                          os.path.basename(os.path.normpath(dest))))
    paths.append(rm)
    return paths
