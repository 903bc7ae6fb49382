"""The PyTorch columns: cuBLAS (the GEMM alone), eager, torch.compile and max-autotune of each problem.

Each problem is written as a model engineer would write it in PyTorch
(KernelBench's ``forward``), on the same shapes, layouts and dtypes as the
MLIR in ``problems.py``.  Timing: warm-up runs, then the median of
``iters`` runs, each between two CUDA events, with L2 flushed before every
run by reading a buffer of twice the L2 size, as vibegemm-run does (clean lines: a write would leave dirty
ones, written back during the timed run), after half a second of untimed
runs so the GPU is at the clock sustained load holds (vibegemm-run does
the same: ``--sustain-ms``); a function whose median is under 10 µs is
captured in a CUDA graph and the graph's replays are timed instead, so
launch overhead does not dominate.  TF32 is off.
"""

from __future__ import annotations

import gc
import math
import platform
import shutil
import statistics
import subprocess
import time
import traceback

import torch
import torch.nn.functional as F

import problems

def flush_bytes():
    """Twice the L2, as vibegemm-run reads: the same flush on both sides
    keeps the duty cycle, and so the sustained clock, the same."""
    return 2 * torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size


GRAPH_BELOW_MS = 0.010
# The H200 boosts to 1980 MHz from idle and settles near 1450 MHz at its
# 700 W limit within a few hundred ms of full load (cuBLAS 4096^3: 0.177 ms
# cold, 0.219 ms loaded; docs/benchmarks/h200-2026-12-04-sustained/power-state.py), so both sides are timed
# after this much back-to-back load.
SUSTAIN_S = 0.5
TIMING_NOTE = ("warm-up and 0.5 s of untimed runs (sustained-load clock), then the median "
               "of N runs each between two CUDA events; "
               "L2 flushed before every run by reading a buffer of 2x L2; "
               "runs under 10 us are timed as CUDA-graph replays; TF32 off")
# Loose bounds for torch.compile against eager: they differ in rounding
# (bf16 eager rounds after every op, Inductor once) but not by more.
COMPILE_TOL = {"f32": 1e-3, "bf16": 5e-2}
TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16}

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def environment():
    """Device, driver and library versions for results.json."""
    env = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "python": platform.python_version(), "host": platform.node()}
    if torch.cuda.is_available():
        prop = torch.cuda.get_device_properties(0)
        env["device"] = {
            "name": prop.name,
            "compute_capability": f"{prop.major}.{prop.minor}",
            "sms": prop.multi_processor_count,
            "memory_gib": round(prop.total_memory / (1 << 30), 1),
            "l2_mib": round(getattr(prop, "L2_cache_size", 0) / (1 << 20), 1) or None,
        }
    else:
        env["device"] = None
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            r = subprocess.run([smi, "--query-gpu=driver_version,clocks.max.sm,power.limit",
                                "--format=csv,noheader"], capture_output=True, text=True,
                               timeout=30)
            env["nvidia_smi"] = r.stdout.strip().splitlines()[0] if r.stdout.strip() else None
        except (OSError, subprocess.SubprocessError):
            env["nvidia_smi"] = None
    try:
        import matplotlib
        env["matplotlib"] = matplotlib.__version__
    except ImportError:
        env["matplotlib"] = None
    return env


# --------------------------------------------------------------------------
# the problem in PyTorch


def make_inputs(p, seed=1234):
    """Inputs in ``problems.input_shapes`` order, on the GPU.

    Level 1 draws uniform [0, 1) like KernelBench's ``torch.rand``; level 2
    draws x from [0, 1) and W, b like ``nn.Linear``'s init,
    uniform(-1/sqrt(K), 1/sqrt(K)); the residual from [-1, 1).
    """
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    dt = TORCH_DTYPE[p.dtype]
    shapes = problems.input_shapes(p)
    out = []
    for i, s in enumerate(shapes):
        t = torch.rand(s, generator=g, device="cuda", dtype=torch.float32)
        if p.level == 2 and i in (1, 2):
            bound = 1.0 / math.sqrt(p.k)
            t = t.mul_(2 * bound).sub_(bound)
        elif p.level == 2 and i == 3:
            t = t.mul_(2).sub_(1)
        out.append(t.to(dt))
    return out


def gemm_fn(p):
    """The GEMM alone, as cuBLAS runs it for this layout (the cuBLAS column)."""
    if p.batch > 1:
        return lambda a, b, *rest: torch.bmm(a, b)
    if p.level == 2:
        return lambda x, w, *rest: F.linear(x, w)
    ta, tb = p.trans_a, p.trans_b
    return lambda a, b, *rest: torch.matmul(a.T if ta else a, b.T if tb else b)


def eager_fn(p):
    """The whole problem as KernelBench's forward writes it."""
    lo, hi = problems.HARDTANH
    s = problems.SCALE
    e = p.epilogue
    if e == "none":
        return gemm_fn(p)
    if e == "bias_relu":
        return lambda x, w, b: torch.relu(F.linear(x, w, b))
    if e == "scale_hardtanh_gelu":
        return lambda x, w, b: F.gelu(F.hardtanh(F.linear(x, w, b) * s, lo, hi))
    if e == "gelu_softmax":
        return lambda x, w, b: torch.softmax(F.gelu(F.linear(x, w, b)), dim=1)
    if e == "scale_residual":
        return lambda x, w, b, r: F.linear(x, w, b) * s + r
    raise ValueError(f"unknown epilogue {e!r}")


# --------------------------------------------------------------------------
# timing


def _event_times(fn, iters, flush):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        flush.sum()  # a read evicts the operands from L2 and leaves it clean
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def _summary(times, method):
    return {"method": method, "runs": len(times),
            "median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "l2": "flushed before every run (a read of 2x L2: clean)"}


def _sustain(fn, flush, seconds):
    """Untimed (flush, run) pairs back to back for ``seconds``."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(10):
            flush.sum()
            fn()
        torch.cuda.synchronize()


def time_fn(fn, iters, warmup, flush):
    """Median time of ``fn()`` in ms, with the method used."""
    for _ in range(max(1, warmup)):
        fn()
    torch.cuda.synchronize()
    _sustain(fn, flush, SUSTAIN_S)
    times = _event_times(fn, iters, flush)
    timing = _summary(times, "cuda-events")
    if timing["median_ms"] >= GRAPH_BELOW_MS:
        return timing
    try:
        graph = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # capture wants warm allocator pools
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(graph):
            fn()
        graph.replay()
        torch.cuda.synchronize()
        times = _event_times(graph.replay, iters, flush)
        timing = _summary(times, "cuda-graph-replay")
    except Exception as e:  # keep the event times; say why
        timing["graph_error"] = f"{type(e).__name__}: {e}"[:500]
    return timing


def _column(fn, p, iters, warmup, flush):
    timing = time_fn(fn, iters, warmup, flush)
    ms = timing["median_ms"]
    return {"status": "ok", "time_ms": ms, "timing": timing,
            "tflops": p.flops / (ms * 1e-3) / 1e12 if ms > 0 else None}


def _error(e):
    return {"status": "error", "error": f"{type(e).__name__}: {e}"[:1000],
            "traceback": traceback.format_exc()[-2000:]}


def _rel_err(out, ref):
    """max|out - ref| / max|ref|, in f32; inf when shapes differ or NaNs show."""
    if out.shape != ref.shape:
        return math.inf
    o, r = out.float(), ref.float()
    den = r.abs().max().item()
    num = (o - r).abs().max().item()
    if math.isnan(num):
        return math.inf
    return num / den if den > 0 else num


def _dynamo_reset():
    """Forget compiled graphs: fresh guards per problem, their memory freed."""
    import torch._dynamo
    torch._dynamo.reset()


def _compile_column(eager, inputs, ref, p, iters, warmup, flush, mode=None):
    """torch.compile of the eager function (default mode, or `mode` such as
    "max-autotune": Inductor benchmarks Triton's GEMM templates against
    cuBLAS and keeps the faster), timed like the rest."""
    _dynamo_reset()
    t0 = time.perf_counter()
    compiled = torch.compile(eager, mode=mode)
    # Modes with CUDA graphs reuse their output buffer on the next run.
    out = compiled(*inputs).clone()
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t0
    col = _column(lambda: compiled(*inputs), p, iters, warmup, flush)
    col["compile_s"] = round(compile_s, 2)
    if ref is not None:
        err = _rel_err(out, ref)
        col["max_rel_err_vs_eager"] = err
        col["check"] = "ok" if err <= COMPILE_TOL[p.dtype] else "mismatch"
    return col


def measure(p, iters=50, warmup=5, compile_torch=True, max_autotune=True, log=print):
    """Time the cuBLAS, eager, torch.compile and, for 16-bit rows,
    torch.compile max-autotune (Triton's GEMM templates: what a PyTorch user
    would pick instead) columns of one problem.

    Returns {"cublas": ..., "eager": ..., "torch_compile": ...,
    "max_autotune": ...}; a column that fails holds its error instead of
    numbers.
    """
    try:
        flush = torch.zeros(flush_bytes() // 4, dtype=torch.float32, device="cuda")
        inputs = make_inputs(p)
    except Exception as e:
        err = _error(e)
        return {"cublas": err, "eager": err, "torch_compile": err, "max_autotune": err}
    try:
        return _columns(p, inputs, flush, iters, warmup, compile_torch, max_autotune, log)
    finally:
        # Give the memory back: vibegemm-run of the next problem needs it.
        del inputs, flush
        if compile_torch:
            try:
                _dynamo_reset()
            except Exception:  # only memory is at stake
                pass
        gc.collect()
        torch.cuda.empty_cache()


def _columns(p, inputs, flush, iters, warmup, compile_torch, max_autotune, log):
    res = {}
    try:
        gemm = gemm_fn(p)
        res["cublas"] = _column(lambda: gemm(*inputs), p, iters, warmup, flush)
        log(f"  cuBLAS: {res['cublas']['time_ms']:.4f} ms")
    except Exception as e:
        res["cublas"] = _error(e)
        log(f"  cuBLAS: {res['cublas']['error']}")
    eager = eager_fn(p)
    ref = None
    try:
        ref = eager(*inputs)
        res["eager"] = _column(lambda: eager(*inputs), p, iters, warmup, flush)
        log(f"  eager: {res['eager']['time_ms']:.4f} ms")
    except Exception as e:
        res["eager"] = _error(e)
        log(f"  eager: {res['eager']['error']}")
    if not compile_torch:
        res["torch_compile"] = {"status": "skipped"}
        res["max_autotune"] = {"status": "skipped"}
        return res
    modes = [("torch_compile", None, "torch.compile")]
    if max_autotune and p.dtype in ("bf16", "f16"):
        modes.append(("max_autotune", "max-autotune-no-cudagraphs", "max-autotune"))
    else:
        res["max_autotune"] = {"status": "skipped"}
    for key, mode, name in modes:
        try:
            col = _compile_column(eager, inputs, ref, p, iters, warmup, flush, mode)
            res[key] = col
            log(f"  {name}: {col['time_ms']:.4f} ms (compiled in {col['compile_s']:.1f} s, "
                f"{col.get('check', 'unchecked')})")
        except Exception as e:
            res[key] = _error(e)
            log(f"  {name}: {res[key]['error']}")
    return res
