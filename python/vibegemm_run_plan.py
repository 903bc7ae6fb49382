#!/usr/bin/env python3
"""Run a vibegemm launch plan on an NVIDIA GPU, check it and time it.

vibegemm compiles MLIR GEMM functions into sm_90 PTX kernels plus one JSON
"launch plan" per dispatch (buffers + an ordered list of kernel launches).
This tool is the plan's test bench.  It

1. validates the plan (pure Python: also usable with ``--dry-run`` on a
   machine without a GPU, CuPy or NumPy; the PTX files are parsed to check
   that every launch passes as many argument bytes as its ``.entry`` takes);
2. allocates every buffer with a guard region (0xA5 bytes) before and after
   it, fills the inputs with seeded random non-zero values rounded to their
   dtype, poisons outputs and temps (0xFF bytes: NaN for every float type,
   -1 for integers) and non-``zero_init`` scratch (0xFF bytes);
3. computes the float64 reference from ``REF.py`` (on the GPU with CuPy by
   default, ``--ref-device cpu`` for NumPy);
4. runs the launches in order on one stream and reports ``ok``,
   ``wrong-result`` (non-finite output, error over tolerance, or an input
   buffer that was written), ``guard-damaged`` (a kernel wrote outside its
   buffer), ``fault`` (a CUDA error such as an illegal address; the driver's
   message is printed) or ``timeout`` (a launch did not finish in
   ``--timeout`` seconds), plus ``load-error``, ``reference-error`` and
   ``plan-error`` for problems found before any kernel ran;
5. times the whole launch sequence (warm-up, then ``--iters`` runs, each
   between two CUDA events; the median is reported) and re-verifies the
   output afterwards (poison again, run once, check);
6. optionally times cuBLAS (through ``torch.matmul``) on the same GEMM shape.

Usage::

    python3 vibegemm_run_plan.py PLAN.json --reference REF.py [--seed N]
        [--iters N] [--warmup N] [--json OUT.json] [--dry-run]
        [--flops N] [--ref-device {auto,gpu,cpu}] [--rtol X]
        [--compare-cublas M N K [--batch B] [--dtype {f32,f16,bf16}]
         [--b-transposed]]

Reference files
    ``REF.py`` defines ``reference(xp, inputs) -> list of arrays``.  ``xp``
    is the array module (``cupy`` or ``numpy``); ``inputs`` are float64
    arrays of that module in ``arg_index`` order, holding exactly the values
    the kernels see (random data rounded to the input dtype, then widened).
    It returns the outputs in ``result_index`` order (any float dtype; they
    are widened to float64).  A legacy ``reference(inputs)`` with one
    parameter is called with NumPy arrays.

Tolerances
    Each output passes when every element is finite and both
    ``||out - ref||_2 / ||ref||_2`` and ``max|out - ref| / max|ref|`` are at
    most the tolerance: the largest of the defaults of the plan's input
    dtypes and that output's dtype (f64 1e-10, f32 1e-4, f16 and bf16 1e-2,
    integers exact), unless ``--rtol`` overrides it.

How PTX is loaded
    The PTX file is read as bytes (a NUL is appended) and handed to
    ``cupy.cuda.function.Module().load()``, i.e. ``cuModuleLoadData``: the
    CUDA driver JIT-compiles the PTX for the GPU in use (it caches the
    result in ``~/.nv/ComputeCache``).  ``cupy.RawModule(path=...)`` does
    the same through ``cuModuleLoad`` and is the fallback when
    ``cupy.cuda.function`` is missing; ``RawModule(code=...)`` is *not*
    used because it runs NVRTC on CUDA C++ source, not PTX.  The driver
    must know the PTX ISA ``.version`` of the file, and ``sm_90a`` PTX only
    loads on compute capability 9.0.  When loading fails and ``ptxas`` is
    on the PATH (or in $CUDA_HOME/bin), ``ptxas`` is run on the file so its
    diagnostics are printed.  Launches with more than 48 KiB of shared
    memory (dynamic + the kernel's static) get
    ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` set first.  Buffer
    arguments are passed as u64 device pointers, i64/i32/f32 arguments as
    8/4/4-byte values; launches in clusters (``"cluster"``) and by-value
    aggregates (TMA descriptors) are refused: vibegemm-run runs those.

Timing notes
    Every timed run includes the memsets of ``zero_init`` scratch buffers
    (the plan asks for zeroed scratch at every dispatch).  Before the timed
    runs a short spin kernel holds the GPU so the host can queue all runs
    ahead of it: the per-run event times then measure back-to-back GPU
    execution, not Python launch overhead (``--no-spin`` turns this off).
    L2 is not flushed between runs, for the plan and for cuBLAS alike.

Exit status: 0 ok (or ``unchecked``: no --reference, outputs only checked
to be finite), 1 wrong-result or guard-damaged, 2 plan/load/reference/usage
error (or ``error``: an unexpected exception), 3 fault or timeout.  After a
fault or timeout the process leaves through ``os._exit`` once the summary
and JSON are written, since the CUDA context cannot be torn down cleanly.

Checked on an NVIDIA H200 (driver 580, CUDA 13.0, CuPy 14.2, torch 2.11)
with nvcc-built sm_90a PTX: ok / wrong-result / guard-damaged / fault /
timeout / load-error paths, >48 KiB dynamic shared memory, f32/f16/bf16
plans, GPU and CPU references, and cuBLAS with and without the spin kernel.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import traceback

TOOL = "vibegemm_run_plan"
# Exceptions from a faulted or hung run are kept here until os._exit():
# freeing their tracebacks would free the runner, whose module unloads
# block on a hung kernel and complain on a faulted context.
_KEEP_ALIVE = []

# --------------------------------------------------------------------------
# dtypes, limits


@dataclasses.dataclass(frozen=True)
class DType:
    """A plan dtype: its size, device storage dtype and default tolerance."""

    name: str
    itemsize: int
    storage: str  # numpy/cupy dtype of the device buffer (bf16: raw bits)
    is_float: bool
    tolerance: float


DTYPES = {
    "f64": DType("f64", 8, "float64", True, 1e-10),
    "f32": DType("f32", 4, "float32", True, 1e-4),
    "f16": DType("f16", 2, "float16", True, 1e-2),
    "bf16": DType("bf16", 2, "uint16", True, 1e-2),
    "i64": DType("i64", 8, "int64", False, 0.0),
    "i32": DType("i32", 4, "int32", False, 0.0),
    "i8": DType("i8", 1, "int8", False, 0.0),
}
BUFFER_KINDS = ("input", "output", "scratch", "temp")
ARG_BYTES = {"buffer": 8, "i64": 8, "i32": 4, "f32": 4}

SM90_MAX_SHARED_OPTIN = 232448  # 227 KiB per block on sm_90
DEFAULT_SHARED_LIMIT = 48 * 1024
MAX_GRID = (2 ** 31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS = 1024
F32_MAX = 3.4028234663852886e38
GUARD_PATTERN = 0xA5
POISON_BYTE = 0xFF
CUDA_SUCCESS = 0
CUDA_ERROR_NOT_READY = 600  # cudaErrorNotReady
PTXAS_MAX_LINES = 25

STATUS_EXIT = {
    "ok": 0, "unchecked": 0, "wrong-result": 1, "guard-damaged": 1,
    "plan-error": 2, "load-error": 2, "reference-error": 2, "error": 2,
    "fault": 3, "timeout": 3,
}
# Which status wins when several apply (first = worst).
STATUS_ORDER = ("fault", "timeout", "error", "load-error", "reference-error",
                "guard-damaged", "wrong-result", "unchecked", "ok")


def worst_status(*statuses):
    """Return the most severe of the given statuses (None ignored)."""
    present = [s for s in statuses if s]
    return min(present, key=STATUS_ORDER.index) if present else "ok"


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _fmt_bytes(n):
    if n >= 1 << 30:
        return f"{n / (1 << 30):.2f} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


def log(msg):
    """Progress messages go to stderr; stdout carries the summary line."""
    print(f"[{TOOL}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# plan model and validation (pure Python)


class PlanError(Exception):
    """The plan (or the PTX it names) is malformed; ``errors`` lists why."""

    def __init__(self, errors, warnings=()):
        self.errors = list(errors)
        self.warnings = list(warnings)
        super().__init__("; ".join(self.errors))


@dataclasses.dataclass
class Buffer:
    name: str
    kind: str
    dtype: str | None  # None for scratch
    shape: tuple | None  # None for scratch
    nbytes: int
    arg_index: int | None = None
    result_index: int | None = None
    zero_init: bool = False
    verify_scale: float = 1.0  # inputs: random values are scaled by it

    @property
    def numel(self):
        return _prod(self.shape) if self.shape is not None else self.nbytes

    def describe(self):
        if self.kind == "scratch":
            return f"{self.nbytes} bytes"
        return f"{self.dtype}[{'x'.join(str(d) for d in self.shape)}]"


@dataclasses.dataclass
class Arg:
    kind: str  # buffer, i64, i32, f32
    value: object

    def describe(self):
        if self.kind == "buffer":
            return self.value
        return f"{self.kind} {self.value}"


@dataclasses.dataclass
class PtxParam:
    type: str  # e.g. ".u64"
    name: str
    size: int  # bytes
    is_array: bool


@dataclasses.dataclass
class PtxEntry:
    name: str
    params: list
    reqntid: tuple | None = None
    maxntid: tuple | None = None
    reqnctapercluster: tuple | None = None
    explicitcluster: bool = False


@dataclasses.dataclass
class PtxInfo:
    version: str | None
    target: str | None
    entries: dict


@dataclasses.dataclass
class Launch:
    index: int
    ptx: str  # as written in the plan
    ptx_path: str  # resolved against the plan's directory
    kernel: str
    grid: tuple
    block: tuple
    shared_bytes: int
    args: list
    ptx_info: PtxInfo | None = None

    @property
    def threads(self):
        return _prod(self.block)


@dataclasses.dataclass
class Plan:
    path: str
    base_dir: str
    version: int
    function: str | None
    dispatch: str | None
    target: str | None
    flops: float | None
    buffers: list
    launches: list
    warnings: list

    @property
    def label(self):
        if self.dispatch:
            return self.dispatch
        if self.function:
            return self.function
        return os.path.basename(self.path)

    def buffer(self, name):
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    def inputs(self):
        return sorted((b for b in self.buffers if b.kind == "input"),
                      key=lambda b: b.arg_index)

    def outputs(self):
        return sorted((b for b in self.buffers if b.kind == "output"),
                      key=lambda b: b.result_index)

    def zero_scratch(self):
        return [b for b in self.buffers if b.kind == "scratch" and b.zero_init]


_IDENT_RE = re.compile(r"[A-Za-z_$%][\w$%]*\Z")
_TARGET_RE = re.compile(r"sm_\d+[a-z]?\Z")

_BUFFER_KEYS = {"name", "kind", "arg_index", "result_index", "shape", "dtype",
                "bytes", "zero_init", "verify_scale"}
_LAUNCH_KEYS = {"ptx", "kernel", "grid", "block", "shared_bytes", "args"}
_TOP_KEYS = {"version", "function", "dispatch", "target", "buffers",
             "launches", "flops", "gemm", "reference", "reference_plan",
             "expect"}


def _parse_buffer(b, where, errors, warnings):
    """Return (name or None, Buffer or None); append problems to errors."""
    if not isinstance(b, dict):
        errors.append(f"{where}: must be an object")
        return None, None
    name = b.get("name")
    if not isinstance(name, str) or not name:
        errors.append(f"{where}: missing or empty 'name'")
        return None, None
    where = f"buffer {name!r}"
    kind = b.get("kind")
    if kind not in BUFFER_KINDS:
        errors.append(f"{where}: unknown kind {kind!r} "
                      f"(expected one of {', '.join(BUFFER_KINDS)})")
        return name, None
    for key in sorted(set(b) - _BUFFER_KEYS):
        warnings.append(f"{where}: unknown key {key!r} ignored")
    n_errors = len(errors)
    dtype = shape = None
    nbytes = 0
    zero_init = False
    if kind == "scratch":
        nb = b.get("bytes")
        if not _is_int(nb) or nb < 0:
            errors.append(f"{where}: scratch needs 'bytes' "
                          f"(a non-negative integer), got {nb!r}")
        else:
            nbytes = nb
        zi = b.get("zero_init", False)
        if not isinstance(zi, bool):
            errors.append(f"{where}: 'zero_init' must be true or false")
        else:
            zero_init = zi
        # dtype/shape, when given, describe the scratch for tensor maps,
        # which this runner does not run.
    else:
        dt = b.get("dtype")
        if dt is None:
            errors.append(f"{where}: missing 'dtype'")
        elif dt not in DTYPES:
            errors.append(f"{where}: unknown dtype {dt!r} "
                          f"(expected one of {', '.join(DTYPES)})")
        else:
            dtype = dt
        shp = b.get("shape")
        if (not isinstance(shp, list)
                or not all(_is_int(d) and d >= 0 for d in shp)):
            errors.append(f"{where}: 'shape' must be a list of non-negative "
                          f"integers, got {shp!r}")
        else:
            shape = tuple(shp)
        if dtype is not None and shape is not None:
            nbytes = _prod(shape) * DTYPES[dtype].itemsize
            if "bytes" in b and b["bytes"] != nbytes:
                errors.append(f"{where}: 'bytes' is {b['bytes']!r} but "
                              f"{dtype}{list(shape)} takes {nbytes}")
        if "zero_init" in b:
            warnings.append(f"{where}: 'zero_init' only applies to scratch; "
                            f"ignored")
    arg_index = result_index = None
    if kind == "input":
        ai = b.get("arg_index")
        if not _is_int(ai) or ai < 0:
            errors.append(f"{where}: input needs 'arg_index' "
                          f"(a non-negative integer), got {ai!r}")
        else:
            arg_index = ai
    elif "arg_index" in b:
        warnings.append(f"{where}: 'arg_index' ignored for kind {kind!r}")
    if kind == "output":
        ri = b.get("result_index")
        if not _is_int(ri) or ri < 0:
            errors.append(f"{where}: output needs 'result_index' "
                          f"(a non-negative integer), got {ri!r}")
        else:
            result_index = ri
    elif "result_index" in b:
        warnings.append(f"{where}: 'result_index' ignored for kind {kind!r}")
    verify_scale = b.get("verify_scale", 1.0)
    if (kind != "input" and "verify_scale" in b) or not isinstance(
            verify_scale, (int, float)) or not 0 < verify_scale <= 1:
        errors.append(f"{where}: 'verify_scale' must be in (0, 1] and on an "
                      f"input")
    if len(errors) > n_errors:
        return name, None
    return name, Buffer(name=name, kind=kind, dtype=dtype, shape=shape,
                        nbytes=nbytes, arg_index=arg_index,
                        result_index=result_index, zero_init=zero_init,
                        verify_scale=float(verify_scale))


def _parse_dims(v, what, maxes, where, errors):
    if (not isinstance(v, list) or not 1 <= len(v) <= 3
            or not all(_is_int(d) for d in v)):
        errors.append(f"{where}: '{what}' must be a list of 1 to 3 integers, "
                      f"got {v!r}")
        return None
    dims = tuple(v) + (1,) * (3 - len(v))
    ok = True
    for axis, (d, m) in enumerate(zip(dims, maxes)):
        if not 1 <= d <= m:
            errors.append(f"{where}: {what}[{axis}] = {d} is outside "
                          f"1..{m}")
            ok = False
    return dims if ok else None


def _parse_arg(a, where, names, errors, warnings):
    if not isinstance(a, dict):
        errors.append(f"{where}: must be an object like {{\"buffer\": NAME}} "
                      f"or {{\"i64\": V}}")
        return None
    if "tensor_map" in a:
        errors.append(f"{where}: TMA descriptor arguments (tensor_map) are "
                      f"run by the C++ runner only; use vibegemm-run")
        return None
    kinds = [k for k in a if k in ARG_BYTES]
    if len(kinds) != 1:
        errors.append(f"{where}: needs exactly one of buffer, i64, i32, f32; "
                      f"got keys {sorted(a)}")
        return None
    kind = kinds[0]
    for key in sorted(set(a) - {kind}):
        warnings.append(f"{where}: unknown key {key!r} ignored")
    v = a[kind]
    if kind == "buffer":
        if not isinstance(v, str):
            errors.append(f"{where}: buffer name must be a string, got {v!r}")
            return None
        if v not in names:
            errors.append(f"{where}: unknown buffer {v!r}")
            return None
    elif kind == "i64":
        if not _is_int(v) or not -2 ** 63 <= v < 2 ** 63:
            errors.append(f"{where}: i64 value must be an integer in the "
                          f"signed 64-bit range, got {v!r}")
            return None
    elif kind == "i32":
        if not _is_int(v) or not -2 ** 31 <= v < 2 ** 31:
            errors.append(f"{where}: i32 value must be an integer in the "
                          f"signed 32-bit range, got {v!r}")
            return None
    else:  # f32
        if not _is_number(v):
            errors.append(f"{where}: f32 value must be a number, got {v!r}")
            return None
        v = float(v)
        if math.isfinite(v) and abs(v) > F32_MAX:
            errors.append(f"{where}: f32 value {v!r} overflows float32")
            return None
    return Arg(kind, v)


def _parse_launch(launch, i, base_dir, names, errors, warnings):
    where = f"launches[{i}]"
    if not isinstance(launch, dict):
        errors.append(f"{where}: must be an object")
        return None
    n_errors = len(errors)
    kernel = launch.get("kernel")
    if not isinstance(kernel, str) or not _IDENT_RE.match(kernel):
        errors.append(f"{where}: 'kernel' must be a PTX entry name, "
                      f"got {kernel!r}")
    else:
        where = f"launches[{i}] ({kernel})"
    if "cluster" in launch:
        errors.append(f"{where}: launches in clusters are not supported "
                      f"here; run the plan with vibegemm-run")
    for key in sorted(set(launch) - _LAUNCH_KEYS - {"cluster"}):
        warnings.append(f"{where}: unknown key {key!r} ignored")
    ptx = launch.get("ptx")
    if not isinstance(ptx, str) or not ptx:
        errors.append(f"{where}: 'ptx' must be a non-empty path")
    grid = _parse_dims(launch.get("grid"), "grid", MAX_GRID, where, errors)
    block = _parse_dims(launch.get("block"), "block", MAX_BLOCK, where,
                        errors)
    if block is not None and _prod(block) > MAX_THREADS:
        errors.append(f"{where}: block has {_prod(block)} threads "
                      f"(at most {MAX_THREADS})")
    shared = launch.get("shared_bytes", 0)
    if not _is_int(shared) or shared < 0:
        errors.append(f"{where}: 'shared_bytes' must be a non-negative "
                      f"integer, got {shared!r}")
    elif shared > SM90_MAX_SHARED_OPTIN:
        errors.append(f"{where}: shared_bytes {shared} exceeds the sm_90 "
                      f"per-block maximum of {SM90_MAX_SHARED_OPTIN}")
    raw_args = launch.get("args")
    args = []
    if not isinstance(raw_args, list):
        errors.append(f"{where}: 'args' must be a list")
    else:
        for j, a in enumerate(raw_args):
            arg = _parse_arg(a, f"{where} args[{j}]", names, errors, warnings)
            if arg is not None:
                args.append(arg)
    if len(errors) > n_errors:
        return None
    return Launch(index=i, ptx=ptx,
                  ptx_path=os.path.normpath(os.path.join(base_dir, ptx)),
                  kernel=kernel, grid=grid, block=block, shared_bytes=shared,
                  args=args)


def validate_plan(doc, base_dir=".", check_files=True, path="<plan>"):
    """Validate a decoded plan; return a Plan or raise PlanError.

    With ``check_files`` the PTX files must exist and are parsed: the kernel
    must be an ``.entry`` of its file and its parameters must match the
    launch's arguments in count and size.
    """
    errors, warnings = [], []
    if not isinstance(doc, dict):
        raise PlanError(["the plan must be a JSON object"])
    for key in sorted(set(doc) - _TOP_KEYS):
        warnings.append(f"unknown top-level key {key!r} ignored")

    version = doc.get("version")
    if "version" not in doc:
        errors.append("missing 'version' (this runner reads version 1)")
    elif not _is_int(version) or version != 1:
        errors.append(f"unsupported plan version {version!r} "
                      f"(this runner reads version 1)")
    strings = {}
    for key in ("function", "dispatch", "target"):
        v = doc.get(key)
        if v is not None and not isinstance(v, str):
            errors.append(f"'{key}' must be a string, got {v!r}")
            v = None
        strings[key] = v
    target = strings["target"]
    if target is not None:
        if not _TARGET_RE.match(target):
            errors.append(f"'target' must look like sm_90, got {target!r}")
        elif target not in ("sm_90", "sm_90a"):
            warnings.append(f"target {target} is not sm_90; the limits "
                            f"checked here are sm_90's")
    flops = doc.get("flops")
    if flops is not None and (not _is_number(flops) or flops <= 0):
        errors.append(f"'flops' must be a positive number, got {flops!r}")
        flops = None

    buffers, names = [], set()
    raw_buffers = doc.get("buffers")
    if not isinstance(raw_buffers, list) or not raw_buffers:
        errors.append("'buffers' must be a non-empty list")
        raw_buffers = []
    n_errors = len(errors)
    for i, b in enumerate(raw_buffers):
        name, buf = _parse_buffer(b, f"buffers[{i}]", errors, warnings)
        if name is None:
            continue
        if name in names:
            errors.append(f"duplicate buffer name {name!r}")
            continue
        names.add(name)
        if buf is not None:
            buffers.append(buf)
    for kind, attr in (("input", "arg_index"), ("output", "result_index")):
        idx = sorted(getattr(b, attr) for b in buffers if b.kind == kind)
        if len(errors) == n_errors and idx != list(range(len(idx))):
            errors.append(f"{kind} {attr} values must be 0..{len(idx) - 1} "
                          f"each once, got {idx}")
    if raw_buffers and not any(b.get("kind") == "output"
                               for b in raw_buffers if isinstance(b, dict)):
        errors.append("the plan has no output buffer: nothing to check")

    launches = []
    raw_launches = doc.get("launches")
    if not isinstance(raw_launches, list) or not raw_launches:
        errors.append("'launches' must be a non-empty list")
        raw_launches = []
    base_dir = os.path.abspath(base_dir)
    for i, launch in enumerate(raw_launches):
        parsed = _parse_launch(launch, i, base_dir, names, errors, warnings)
        if parsed is not None:
            launches.append(parsed)

    used = {a.value for launch in launches for a in launch.args
            if a.kind == "buffer"}
    for b in buffers:
        if b.name not in used:
            msg = f"buffer {b.name!r} is not passed to any launch"
            if b.kind == "output":
                errors.append(msg + ": the output would never be written")
            else:
                warnings.append(msg)

    if check_files:
        cache = {}
        for launch in launches:
            where = f"launches[{launch.index}] ({launch.kernel})"
            if launch.ptx_path not in cache:
                try:
                    with open(launch.ptx_path, "r", encoding="utf-8",
                              errors="replace") as f:
                        cache[launch.ptx_path] = parse_ptx(f.read())
                except OSError as e:
                    errors.append(f"{where}: cannot read PTX file "
                                  f"{launch.ptx_path}: {e.strerror or e}")
                    cache[launch.ptx_path] = None
            info = cache[launch.ptx_path]
            if info is None:
                continue
            launch.ptx_info = info
            check_launch_against_ptx(launch, info, where, errors, warnings)

    if errors:
        raise PlanError(errors, warnings)
    return Plan(path=path, base_dir=base_dir, version=version,
                function=strings["function"], dispatch=strings["dispatch"],
                target=target, flops=float(flops) if flops else None,
                buffers=buffers, launches=launches, warnings=warnings)


def load_plan(path, check_files=True):
    """Read and validate a plan file; raise PlanError when it is unusable."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise PlanError([f"cannot read plan {path}: {e.strerror or e}"])
    except json.JSONDecodeError as e:
        raise PlanError([f"{path} is not valid JSON: {e}"])
    return validate_plan(doc, base_dir=os.path.dirname(os.path.abspath(path)),
                         check_files=check_files, path=os.path.abspath(path))


# --------------------------------------------------------------------------
# PTX signature parsing (pure Python)

_PTX_TYPE_BYTES = {
    ".b8": 1, ".u8": 1, ".s8": 1,
    ".b16": 2, ".u16": 2, ".s16": 2, ".f16": 2, ".bf16": 2,
    ".b32": 4, ".u32": 4, ".s32": 4, ".f32": 4, ".f16x2": 4, ".bf16x2": 4,
    ".b64": 8, ".u64": 8, ".s64": 8, ".f64": 8,
    ".b128": 16,
}
_ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$%][\w$%]*)")
_DIRECTIVE_RE = re.compile(
    r"\.(reqntid|maxntid|reqnctapercluster)\s+(\d+)(?:\s*,\s*(\d+))?"
    r"(?:\s*,\s*(\d+))?")


def _strip_ptx_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def parse_ptx(text):
    """Return the PTX .version, .target and every .entry's parameters."""
    text = _strip_ptx_comments(text)
    m = re.search(r"^\s*\.version\s+(\d+\.\d+)", text, re.M)
    version = m.group(1) if m else None
    m = re.search(r"^\s*\.target\s+([\w]+)", text, re.M)
    target = m.group(1) if m else None
    entries = {}
    for m in _ENTRY_RE.finditer(text):
        name = m.group(1)
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
        params_text = ""
        if pos < len(text) and text[pos] == "(":
            close = text.find(")", pos)
            if close < 0:
                continue
            params_text = text[pos + 1:close]
            pos = close + 1
        brace = text.find("{", pos)
        semi = text.find(";", pos)
        if brace < 0 or 0 <= semi < brace:
            continue  # a declaration without a body
        directives = text[pos:brace]
        params = []
        for decl in params_text.split(","):
            tokens = decl.split()
            if not tokens:
                continue
            ptype = next((t for t in tokens if t in _PTX_TYPE_BYTES), None)
            pname = tokens[-1]
            count = 1
            am = re.search(r"\[(\d*)\]", decl)
            if am:
                count = int(am.group(1)) if am.group(1) else 0
                pname = pname.split("[")[0]
            size = _PTX_TYPE_BYTES.get(ptype, 0) * count
            params.append(PtxParam(type=ptype or "?", name=pname, size=size,
                                   is_array=am is not None))
        entry = PtxEntry(name=name, params=params)
        for dm in _DIRECTIVE_RE.finditer(directives):
            dims = tuple(int(g) for g in dm.groups()[1:] if g is not None)
            dims = dims + (1,) * (3 - len(dims))
            setattr(entry, dm.group(1), dims)
        entry.explicitcluster = ".explicitcluster" in directives
        entries[name] = entry
    return PtxInfo(version=version, target=target, entries=entries)


def check_launch_against_ptx(launch, info, where, errors, warnings):
    """Compare a launch with its PTX .entry (params, ntid, cluster dims)."""
    entry = info.entries.get(launch.kernel)
    if entry is None:
        known = ", ".join(sorted(info.entries)) or "none"
        errors.append(f"{where}: no .entry {launch.kernel!r} in {launch.ptx} "
                      f"(entries: {known})")
        return
    if len(entry.params) != len(launch.args):
        errors.append(f"{where}: the plan passes {len(launch.args)} "
                      f"arguments but .entry {launch.kernel} takes "
                      f"{len(entry.params)}")
    for j, (arg, param) in enumerate(zip(launch.args, entry.params)):
        if param.is_array:
            errors.append(f"{where} args[{j}]: parameter {param.name} is a "
                          f"{param.size}-byte by-value aggregate; plan v1 "
                          f"has no argument kind for it")
            continue
        want = ARG_BYTES[arg.kind]
        if param.size != want:
            errors.append(f"{where} args[{j}]: {arg.kind} is {want} bytes "
                          f"but parameter {param.name} is {param.type} "
                          f"({param.size} bytes)")
            continue
        is_float_param = param.type.startswith(".f")
        if arg.kind == "f32" and param.type in (".u32", ".s32"):
            warnings.append(f"{where} args[{j}]: f32 value passed to integer "
                            f"parameter {param.name} ({param.type})")
        if arg.kind in ("i32", "i64", "buffer") and is_float_param:
            warnings.append(f"{where} args[{j}]: {arg.kind} passed to float "
                            f"parameter {param.name} ({param.type})")
    block = launch.block
    if entry.reqntid is not None and block != entry.reqntid:
        errors.append(f"{where}: block {list(block)} but the kernel requires "
                      f".reqntid {list(entry.reqntid)}")
    if entry.maxntid is not None and _prod(block) > _prod(entry.maxntid):
        errors.append(f"{where}: block has {_prod(block)} threads but the "
                      f"kernel's .maxntid allows {_prod(entry.maxntid)}")
    if entry.reqnctapercluster is not None:
        bad = [a for a in range(3)
               if launch.grid[a] % entry.reqnctapercluster[a]]
        if bad:
            errors.append(f"{where}: grid {list(launch.grid)} is not a "
                          f"multiple of the cluster shape "
                          f"{list(entry.reqnctapercluster)}")
    elif entry.explicitcluster:
        errors.append(f"{where}: the kernel is .explicitcluster without "
                      f".reqnctapercluster; it needs a cluster launch, "
                      f"which this runner does not make")
    m = re.match(r"sm_(\d+)", info.target or "")
    if m and int(m.group(1)) > 90:
        warnings.append(f"{where}: PTX .target {info.target} is newer than "
                        f"sm_90")


# --------------------------------------------------------------------------
# reference files


class ReferenceError_(Exception):
    """The reference file is unusable or its results are."""


@dataclasses.dataclass
class Reference:
    path: str
    fn: object
    wants_xp: bool

    def describe(self):
        sig = "reference(xp, inputs)" if self.wants_xp else "reference(inputs)"
        return f"{self.path}: {sig}"


def load_reference(path):
    """Import REF.py and return its ``reference`` function."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ReferenceError_(f"reference file not found: {path}")
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(
        f"vibegemm_reference_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the file is user code: report anything
        raise ReferenceError_(f"importing {path} failed: "
                              f"{type(e).__name__}: {e}")
    finally:
        sys.path.remove(os.path.dirname(path))
    fn = getattr(module, "reference", None)
    if not callable(fn):
        raise ReferenceError_(f"{path} defines no function 'reference'")
    wants_xp = True
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        wants_xp = len(params) != 1
    except (TypeError, ValueError):
        pass
    return Reference(path=path, fn=fn, wants_xp=wants_xp)


def tolerance_for(plan, out, override=None):
    """Default tolerance of an output: the loosest of its and the inputs'."""
    if override is not None:
        return override
    dts = {b.dtype for b in plan.inputs()} | {out.dtype}
    return max(DTYPES[d].tolerance for d in dts)


# --------------------------------------------------------------------------
# dtype conversion and data (xp is numpy or cupy; imported lazily)


def f32_to_bf16_bits(xp, a):
    """Round float32 values to bfloat16 (nearest even); return uint16 bits."""
    a = xp.ascontiguousarray(a, dtype=xp.float32)
    u = a.view(xp.uint32)
    rounding = ((u >> 16) & 1) + 0x7FFF
    bits = ((u + rounding) >> 16).astype(xp.uint16)
    nan = xp.isnan(a)
    return xp.where(nan, xp.uint16(0x7FC0), bits)


def bf16_bits_to_f32(xp, bits):
    """Widen bfloat16 bits (uint16) to float32 exactly."""
    wide = xp.ascontiguousarray(bits).astype(xp.uint32) << 16
    return wide.view(xp.float32)


def encode(xp, a, dtype):
    """float32/int host values -> the device storage dtype of ``dtype``."""
    if dtype == "bf16":
        return f32_to_bf16_bits(xp, a)
    return xp.ascontiguousarray(a).astype(DTYPES[dtype].storage)


def decode_to_f64(xp, a, dtype):
    """Device storage values -> float64 (exact for every plan dtype)."""
    if dtype == "bf16":
        return bf16_bits_to_f32(xp, a).astype(xp.float64)
    return a.astype(xp.float64)


def random_nonzero(np, rng, shape, dtype, scale=1.0):
    """Seeded random values, none zero, in device storage form.

    Floats: magnitude uniform in [0.1, 1) times ``scale`` with a random sign,
    rounded to the dtype.  Integers: magnitude 1..4 with a random sign.
    """
    n = _prod(shape)
    sign = rng.integers(0, 2, size=n, dtype=np.int8)
    sign *= 2
    sign -= 1
    if DTYPES[dtype].is_float:
        a = rng.random(n, dtype=np.float32)
        a *= np.float32(0.9)
        a += np.float32(0.1)
        a *= np.float32(scale)
        a *= sign
    else:
        a = rng.integers(1, 5, size=n, dtype=np.int64) * sign
    return encode(np, a, dtype).reshape(shape)


def _unravel(flat, shape):
    idx = []
    for d in reversed(shape):
        flat, r = divmod(flat, d) if d else (flat, 0)
        idx.append(r)
    return list(reversed(idx))


def compare_output(xp, got, ref, tol):
    """Compare float64 arrays; return a dict of error numbers and 'ok'."""
    res = {"shape": list(got.shape), "tol": tol}
    n = int(got.size)
    if n == 0:
        res.update(ok=True, nonfinite=0, rel_l2=0.0, max_abs=0.0,
                   max_abs_scaled=0.0)
        return res
    finite = xp.isfinite(got)
    nonfinite = n - int(xp.count_nonzero(finite))
    diff = xp.abs(got - ref)
    diff = xp.where(finite, diff, 0.0)
    ref_norm = float(xp.sqrt(xp.sum(ref * ref)))
    err_norm = float(xp.sqrt(xp.sum(diff * diff)))
    rel_l2 = err_norm / ref_norm if ref_norm > 0 else err_norm
    ref_max = float(xp.max(xp.abs(ref)))
    worst = int(xp.argmax(diff))
    max_abs = float(diff.ravel()[worst])
    max_abs_scaled = max_abs / ref_max if ref_max > 0 else max_abs
    res.update(
        nonfinite=nonfinite, rel_l2=rel_l2, max_abs=max_abs,
        max_abs_scaled=max_abs_scaled, ref_l2=ref_norm, ref_max_abs=ref_max,
        worst={"index": _unravel(worst, got.shape),
               "got": float(got.ravel()[worst]),
               "expected": float(ref.ravel()[worst])})
    if nonfinite:
        first = int(xp.argmin(finite.ravel()))
        res["first_nonfinite"] = {"index": _unravel(first, got.shape),
                                  "got": float(got.ravel()[first]),
                                  "expected": float(ref.ravel()[first])}
    res["ok"] = (nonfinite == 0 and rel_l2 <= tol and max_abs_scaled <= tol)
    return res


def describe_output_check(name, res):
    """One human line for an output's comparison."""
    if res.get("error"):
        return f"{name}: {res['error']}"
    text = (f"{name}: rel_l2={res['rel_l2']:.2e} "
            f"max_abs/max|ref|={res['max_abs_scaled']:.2e} "
            f"(tol {res['tol']:.0e})")
    if res.get("nonfinite"):
        f = res["first_nonfinite"]
        text += (f", {res['nonfinite']} non-finite (poison left?) "
                 f"first at {f['index']}")
    elif not res["ok"] and "worst" in res:
        w = res["worst"]
        text += (f", worst at {w['index']}: got {w['got']:.6g} "
                 f"expected {w['expected']:.6g}")
    return text


# --------------------------------------------------------------------------
# GPU execution (CuPy)


class KernelFault(Exception):
    """A CUDA error while running the plan (the context may be unusable)."""


class KernelTimeout(Exception):
    """The launch sequence did not finish in time."""


class LoadError(Exception):
    """A PTX module or kernel could not be loaded or configured."""


# CUfunction_attribute values (stable in the CUDA driver API).
_FUNC_ATTRS = {
    "max_threads_per_block": ("CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", 0),
    "static_shared_bytes": ("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES", 1),
    "local_bytes": ("CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES", 3),
    "num_regs": ("CU_FUNC_ATTRIBUTE_NUM_REGS", 4),
    "ptx_version": ("CU_FUNC_ATTRIBUTE_PTX_VERSION", 5),
    "binary_version": ("CU_FUNC_ATTRIBUTE_BINARY_VERSION", 6),
}
_ATTR_MAX_DYNAMIC_SHARED = ("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
                            8)

# Spins until %globaltimer has advanced by the given number of nanoseconds.
SPIN_PTX = r"""
.version 7.0
.target sm_70
.address_size 64

.visible .entry vibegemm_spin(
    .param .u64 vibegemm_spin_ns
)
{
    .reg .pred %p<2>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [vibegemm_spin_ns];
    mov.u64 %rd2, %globaltimer;
$Lvibegemm_spin:
    mov.u64 %rd3, %globaltimer;
    sub.s64 %rd4, %rd3, %rd2;
    setp.lt.u64 %p1, %rd4, %rd1;
    @%p1 bra $Lvibegemm_spin;
    ret;
}
"""


def cuda_error_types(cp):
    """The exception classes CuPy raises for CUDA driver/runtime errors."""
    types = []
    for mod_name, cls in (("driver", "CUDADriverError"),
                          ("runtime", "CUDARuntimeError")):
        t = getattr(getattr(cp.cuda, mod_name, None), cls, None)
        if isinstance(t, type):
            types.append(t)
    return tuple(types) or (RuntimeError,)


def _ptxas_diagnose(path, arch):
    """Run ptxas on a PTX file that failed to load; return its output."""
    exe = shutil.which("ptxas")
    if exe is None:
        for env in ("CUDA_HOME", "CUDA_PATH"):
            cand = os.path.join(os.environ.get(env, ""), "bin", "ptxas")
            if os.environ.get(env) and os.access(cand, os.X_OK):
                exe = cand
                break
    if exe is None:
        cand = "/usr/local/cuda/bin/ptxas"
        exe = cand if os.access(cand, os.X_OK) else None
    if exe is None:
        return None
    try:
        r = subprocess.run([exe, f"-arch={arch}", path, "-o", os.devnull],
                           capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"could not run {exe}: {e}"
    lines = (r.stdout + r.stderr).strip().splitlines()
    if len(lines) > PTXAS_MAX_LINES:
        more = len(lines) - PTXAS_MAX_LINES
        lines = lines[:PTXAS_MAX_LINES] + [f"... {more} more lines"]
    return (f"ptxas -arch={arch} (exit {r.returncode}): "
            + ("\n".join(lines) or "no messages"))


class GpuRunner:
    """Owns the guarded buffers, loaded kernels and the stream of one plan."""

    def __init__(self, cp, np, plan, guard_bytes, timeout):
        self.cp, self.np, self.plan = cp, np, plan
        self.guard = guard_bytes
        self.timeout = timeout
        self.errors = cuda_error_types(cp)
        self.stream = cp.cuda.Stream(non_blocking=False)
        self.raw, self.view, self.ptr, self.pristine = {}, {}, {}, {}
        self.modules, self.kernels = {}, []
        self.spin_func = None
        dev = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        name = props.get("name", b"?")
        self.device = {
            "id": dev.id,
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props['major']}.{props['minor']}",
            "sm_count": props.get("multiProcessorCount"),
            "shared_per_block_optin": props.get("sharedMemPerBlockOptin"),
            "driver_version": cp.cuda.runtime.driverGetVersion(),
            "runtime_version": cp.cuda.runtime.runtimeGetVersion(),
            "cupy_version": cp.__version__,
        }
        self.smem_optin = (props.get("sharedMemPerBlockOptin")
                           or SM90_MAX_SHARED_OPTIN)

    # -- memory ---------------------------------------------------------

    def _memset(self, ptr, value, nbytes):
        """cudaMemsetAsync on the plan's stream (ptr is an int address)."""
        if nbytes:
            self.cp.cuda.runtime.memsetAsync(ptr, value, nbytes,
                                             self.stream.ptr)

    def allocate(self):
        cp, g = self.cp, self.guard
        for b in self.plan.buffers:
            raw = cp.empty(2 * g + b.nbytes, dtype=cp.uint8)
            base = raw.data + g
            self.raw[b.name] = raw
            self.ptr[b.name] = int(base.ptr)
            if b.dtype is not None:
                self.view[b.name] = cp.ndarray(
                    b.shape, dtype=DTYPES[b.dtype].storage, memptr=base)
            else:
                self.view[b.name] = cp.ndarray((b.nbytes,), dtype=cp.uint8,
                                               memptr=base)
            self._memset(raw.data.ptr, GUARD_PATTERN, g)
            self._memset(raw.data.ptr + g + b.nbytes, GUARD_PATTERN, g)
        self.sync("allocation")

    def upload_inputs(self, host):
        for b in self.plan.inputs():
            self.view[b.name].set(host[b.name], stream=self.stream)
        with self.stream:
            for b in self.plan.inputs():
                g = self.guard
                self.pristine[b.name] = self.raw[b.name][g:g + b.nbytes].copy()
        self.sync("input upload")

    def poison(self):
        """Poison outputs, temps and non-zero_init scratch with 0xFF."""
        for b in self.plan.buffers:
            if b.kind in ("output", "temp") or (b.kind == "scratch"
                                                and not b.zero_init):
                self._memset(self.ptr[b.name], POISON_BYTE, b.nbytes)

    # -- kernels --------------------------------------------------------

    def _func_attr(self, key):
        """CUfunction_attribute code (None: max dynamic shared size)."""
        const_name, fallback = (_ATTR_MAX_DYNAMIC_SHARED if key is None
                                else _FUNC_ATTRS[key])
        return getattr(self.cp.cuda.driver, const_name, fallback)

    def _load_module(self, path, data):
        """cuModuleLoadData on the PTX bytes (the driver JIT-compiles it)."""
        try:
            module_cls = importlib.import_module("cupy.cuda.function").Module
        except (ImportError, AttributeError):
            module_cls = None
        if module_cls is not None:
            mod = module_cls()
            mod.load(data)
            return mod
        if path is None:
            raise LoadError("cupy.cuda.function.Module is unavailable")
        return self.cp.RawModule(path=path)

    def _get_function(self, mod, name):
        f = mod.get_function(name)
        return getattr(f, "kernel", f)  # RawModule gives a RawKernel

    def load_kernels(self):
        """Load every PTX module and kernel; check and set its limits."""
        cp = self.cp
        drv = cp.cuda.driver
        try:
            spin_mod = self._load_module(None, SPIN_PTX.encode() + b"\0")
            self.spin_func = self._get_function(spin_mod, "vibegemm_spin")
        except Exception as e:  # timing still works without it
            log(f"warning: spin kernel unavailable ({e}); timing without it")
        for launch in self.plan.launches:
            path = launch.ptx_path
            mod = self.modules.get(path)
            if mod is None:
                with open(path, "rb") as f:
                    data = f.read()
                if not data.endswith(b"\0"):
                    data += b"\0"
                try:
                    mod = self._load_module(path, data)
                except self.errors as e:
                    raise LoadError(self._load_failure(launch, e))
                self.modules[path] = mod
            try:
                func = self._get_function(mod, launch.kernel)
            except self.errors as e:
                raise LoadError(f"kernel {launch.kernel!r} not found in "
                                f"{launch.ptx}: {e}")
            attrs = {}
            for key in _FUNC_ATTRS:
                try:
                    attrs[key] = drv.funcGetAttribute(
                        self._func_attr(key), func.ptr)
                except self.errors:
                    attrs[key] = None
            where = f"launch {launch.index} ({launch.kernel})"
            max_threads = attrs["max_threads_per_block"]
            if max_threads is not None and launch.threads > max_threads:
                raise LoadError(
                    f"{where}: block has {launch.threads} threads but the "
                    f"compiled kernel allows at most {max_threads} "
                    f"({attrs['num_regs']} registers per thread)")
            static = attrs["static_shared_bytes"] or 0
            total = static + launch.shared_bytes
            if total > self.smem_optin:
                raise LoadError(
                    f"{where}: {launch.shared_bytes} B dynamic + {static} B "
                    f"static shared memory exceeds the device's "
                    f"{self.smem_optin} B per block")
            if total > DEFAULT_SHARED_LIMIT:
                try:
                    drv.funcSetAttribute(func.ptr, self._func_attr(None),
                                         launch.shared_bytes)
                except self.errors as e:
                    raise LoadError(f"{where}: setting max dynamic shared "
                                    f"memory to {launch.shared_bytes} B "
                                    f"failed: {e}")
            attrs["dynamic_shared_bytes"] = launch.shared_bytes
            self.kernels.append((launch, func, None, attrs))
            log(f"{where}: {attrs['num_regs']} regs, "
                f"{attrs['local_bytes']} B local (spills), {static} B static "
                f"+ {launch.shared_bytes} B dynamic shared, grid "
                f"{list(launch.grid)} block {list(launch.block)}")

    def bind_args(self):
        """Build each launch's argument tuple (after allocate())."""
        np = self.np
        bound = []
        for launch, func, _, attrs in self.kernels:
            args = []
            for a in launch.args:
                if a.kind == "buffer":
                    args.append(np.uint64(self.ptr[a.value]))
                elif a.kind == "i64":
                    args.append(np.int64(a.value))
                elif a.kind == "i32":
                    args.append(np.int32(a.value))
                else:
                    args.append(np.float32(a.value))
            bound.append((launch, func, tuple(args), attrs))
        self.kernels = bound

    def _load_failure(self, launch, e):
        msg = f"loading {launch.ptx_path} failed: {e}"
        text = str(e)
        if "UNSUPPORTED_PTX_VERSION" in text:
            ver = launch.ptx_info.version if launch.ptx_info else "?"
            drv = self.device["driver_version"]
            msg += (f" (PTX ISA .version {ver} is newer than the driver "
                    f"{drv // 1000}.{drv % 1000 // 10} can JIT)")
        target = (launch.ptx_info.target if launch.ptx_info else None)
        if "NO_BINARY_FOR_GPU" in text or "INVALID_PTX" in text:
            msg += (f" (PTX .target {target}, device compute capability "
                    f"{self.device['compute_capability']})")
        diag = _ptxas_diagnose(launch.ptx_path, target or "sm_90")
        if diag:
            msg += "\n" + diag
        return msg

    # -- running --------------------------------------------------------

    def run_sequence(self, sync_each=False):
        """Enqueue one run: zero the zero_init scratch, then every launch."""
        for b in self.plan.zero_scratch():
            self._memset(self.ptr[b.name], 0, b.nbytes)
        for launch, func, args, _ in self.kernels:
            try:
                func(launch.grid, launch.block, args,
                     shared_mem=launch.shared_bytes, stream=self.stream)
            except self.errors as e:
                raise KernelFault(f"launch {launch.index} "
                                  f"({launch.kernel}): {e}")
            if sync_each:
                self.sync(f"launch {launch.index} ({launch.kernel})")

    def spin(self, ns):
        if self.spin_func is not None and ns > 0:
            self.spin_func((1, 1, 1), (1, 1, 1), (self.np.uint64(ns),),
                           stream=self.stream)

    def sync(self, what, timeout=None):
        """Wait for the stream with a deadline; map CUDA errors to faults.

        Polls cudaEventQuery, whose status CuPy returns without raising
        (``Event.done`` is False on an error too, so it cannot be used).
        """
        timeout = self.timeout if timeout is None else timeout
        cp = self.cp
        try:
            ev = cp.cuda.Event(disable_timing=True)
            ev.record(self.stream)
            deadline = time.monotonic() + timeout
            delay = 1e-5
            while True:
                status = cp.cuda.runtime.eventQuery(ev.ptr)
                if status == CUDA_SUCCESS:
                    break
                if status != CUDA_ERROR_NOT_READY:
                    ev.synchronize()  # raises with the runtime's message
                    raise KernelFault(f"{what}: CUDA error {status}")
                if time.monotonic() > deadline:
                    raise KernelTimeout(f"{what}: not finished after "
                                        f"{timeout:g} s (hang or deadlock?)")
                time.sleep(delay)
                delay = min(delay * 2, 1e-3)
            self.stream.synchronize()
        except self.errors as e:
            raise KernelFault(f"{what}: {e}")

    # -- checks ---------------------------------------------------------

    def check_guards(self):
        """Return a list of damaged guard regions (empty when all intact)."""
        cp, g = self.cp, self.guard
        damage = []
        with self.stream:
            for b in self.plan.buffers:
                raw = self.raw[b.name]
                for region, sl, offset in (
                        ("before", raw[:g], -g),
                        ("after", raw[g + b.nbytes:], b.nbytes)):
                    bad = sl != GUARD_PATTERN
                    count = int(cp.count_nonzero(bad))
                    if count:
                        where = cp.flatnonzero(bad)
                        damage.append({
                            "buffer": b.name, "region": region,
                            "bytes": count,
                            "first_offset": offset + int(where[0]),
                            "last_offset": offset + int(where[-1])})
        return damage

    def modified_inputs(self):
        """Names of input buffers whose bytes changed since the upload."""
        cp, g = self.cp, self.guard
        changed = []
        with self.stream:
            for b in self.plan.inputs():
                now = self.raw[b.name][g:g + b.nbytes]
                if not bool(cp.array_equal(now, self.pristine[b.name])):
                    changed.append(b.name)
        return changed

    def output_f64(self, b, xp):
        """An output buffer widened to float64, as an array of ``xp``."""
        with self.stream:
            view = self.view[b.name]
            if xp is self.cp:
                return decode_to_f64(self.cp, view, b.dtype)
            host = self.cp.asnumpy(view, stream=self.stream)
        self.stream.synchronize()
        return decode_to_f64(xp, host, b.dtype)


def time_on_stream(runner, fn, warmup, iters, use_spin, what):
    """Median/mean/min/max ms of ``fn`` over ``iters`` event-timed runs."""
    cp = runner.cp
    host = []
    for _ in range(warmup):
        t0 = time.perf_counter()
        fn()
        host.append(time.perf_counter() - t0)
    # Host cost of one enqueue; the first call may include one-time setup.
    host_per_run = statistics.median(host[1:] or host or [50e-6])
    runner.sync(f"{what} warm-up")
    if iters <= 0:
        return None
    events = [cp.cuda.Event() for _ in range(iters + 1)]
    spin_ns = 0
    if use_spin and runner.spin_func is not None:
        spin_ns = int(min(0.25, max(1e-3, 1.5 * host_per_run * iters)) * 1e9)
        runner.spin(spin_ns)
    events[0].record(runner.stream)
    t1 = time.perf_counter()
    for i in range(iters):
        fn()
        events[i + 1].record(runner.stream)
    enqueue_ms = (time.perf_counter() - t1) * 1e3
    runner.sync(f"{what} timed runs",
                timeout=runner.timeout + spin_ns * 1e-9)
    times = [cp.cuda.get_elapsed_time(events[i], events[i + 1])
             for i in range(iters)]
    total = cp.cuda.get_elapsed_time(events[0], events[-1])
    res = {
        "warmup": warmup, "iters": iters,
        "median_ms": statistics.median(times), "mean_ms": total / iters,
        "min_ms": min(times), "max_ms": max(times),
        "stdev_ms": statistics.stdev(times) if iters > 1 else 0.0,
        "samples_ms": times, "spin_ms": spin_ns * 1e-6,
        "host_enqueue_ms": enqueue_ms,
    }
    # If the host was still enqueueing after the GPU could have finished,
    # Python launch overhead, not the kernels, set the pace.
    res["host_bound"] = enqueue_ms > spin_ns * 1e-6 + total
    return res


def time_cublas(runner, m, n, k, batch, dtype, b_transposed, warmup, iters,
                use_spin, seed):
    """Time torch.matmul (cuBLAS) on the runner's stream."""
    import warnings

    import torch

    cp = runner.cp
    dev = torch.device("cuda", cp.cuda.Device().id)
    torch.cuda.set_device(dev)
    settings = {}
    mm = torch.backends.cuda.matmul
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "f32":
            if hasattr(mm, "fp32_precision"):
                mm.fp32_precision = "ieee"  # torch >= 2.9: TF32 off
                settings["fp32_precision"] = "ieee"
            else:
                mm.allow_tf32 = False
                settings["allow_tf32"] = False
        for flag in ("allow_fp16_reduced_precision_reduction",
                     "allow_bf16_reduced_precision_reduction"):
            if hasattr(mm, flag):
                setattr(mm, flag, False)
                settings[flag] = False
    tdt = {"f32": torch.float32, "f16": torch.float16,
           "bf16": torch.bfloat16}[dtype]
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    lead = (batch,) if batch > 1 else ()
    a = torch.empty(lead + (m, k), dtype=tdt, device=dev)
    a.uniform_(-1.0, 1.0, generator=gen)
    b = torch.empty(lead + ((n, k) if b_transposed else (k, n)), dtype=tdt,
                    device=dev)
    b.uniform_(-1.0, 1.0, generator=gen)
    bm = b.transpose(-1, -2) if b_transposed else b
    c = torch.empty(lead + (m, n), dtype=tdt, device=dev)
    torch.cuda.synchronize(dev)
    ext = torch.cuda.ExternalStream(runner.stream.ptr, device=dev)
    with torch.cuda.stream(ext):
        res = time_on_stream(runner, lambda: torch.matmul(a, bm, out=c),
                             warmup, iters, use_spin, "cuBLAS")
    flops = 2.0 * batch * m * n * k
    res.update(m=m, n=n, k=k, batch=batch, dtype=dtype,
               b_transposed=b_transposed, flops=flops,
               tflops=flops / (res["median_ms"] * 1e-3) / 1e12,
               torch_version=torch.__version__, settings=settings)
    return res


# --------------------------------------------------------------------------
# the run


def _json_safe(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return _json_safe(obj.item())
    return obj


def write_json(path, result):
    if not path:
        return
    with open(path, "w", encoding="utf-8") as f:
        json.dump(_json_safe(result), f, indent=2, sort_keys=False)
        f.write("\n")


def plan_flops(plan, args):
    """FLOPs per run: --flops, else the plan's, else 2*B*M*N*K of cuBLAS."""
    if args.flops:
        return float(args.flops), "--flops"
    if plan.flops:
        return plan.flops, "plan"
    if args.compare_cublas:
        m, n, k = args.compare_cublas
        return 2.0 * args.batch * m * n * k, "--compare-cublas shape"
    return None, None


def cublas_dtype(plan, args):
    """--dtype, else the common dtype of the plan's inputs if f32/f16/bf16."""
    if args.dtype:
        return args.dtype
    dts = {b.dtype for b in plan.inputs()} & {"f32", "f16", "bf16"}
    # Prefer the low-precision operand type (bias vectors are often f32).
    for d in ("bf16", "f16", "f32"):
        if d in dts:
            return d
    return None


def resolve_ref_device(choice):
    if choice != "auto":
        return choice
    return "gpu" if importlib.util.find_spec("cupy") is not None else "cpu"


def dry_run(plan, ref, args, result):
    """Print what a real run would do; touch no GPU."""
    lines = []
    head = f"plan {plan.path}: version {plan.version}"
    for key in ("function", "dispatch", "target"):
        if getattr(plan, key):
            head += f", {key} {getattr(plan, key)}"
    lines.append(head)
    lines.append(f"buffers (each between two {args.guard_bytes} B guards of "
                 f"0x{GUARD_PATTERN:02X}):")
    for b in plan.buffers:
        if b.kind == "input":
            what = (f"arg {b.arg_index}: random non-zero, seed {args.seed}, "
                    f"rounded to {b.dtype}")
        elif b.kind == "output":
            what = f"result {b.result_index}: poisoned 0xFF, then checked"
        elif b.kind == "temp":
            what = "poisoned 0xFF"
        else:
            what = ("zeroed before every run" if b.zero_init
                    else "poisoned 0xFF")
        lines.append(f"  {b.name:<12} {b.kind:<7} {b.describe():<22} "
                     f"{_fmt_bytes(b.nbytes):>10}  {what}")
    lines.append("launches (in order, one stream):")
    for launch in plan.launches:
        smem = f"{launch.shared_bytes} B dynamic shared"
        if launch.shared_bytes > DEFAULT_SHARED_LIMIT:
            smem += " (sets max-dynamic-shared attribute)"
        lines.append(f"  {launch.index}: {launch.ptx} :: {launch.kernel} "
                     f"grid {list(launch.grid)} block {list(launch.block)}, "
                     f"{smem}")
        lines.append("     args: " + ", ".join(
            str(a.describe()) for a in launch.args))
        if launch.ptx_info is not None:
            entry = launch.ptx_info.entries[launch.kernel]
            lines.append(f"     PTX .version {launch.ptx_info.version} "
                         f".target {launch.ptx_info.target}; "
                         f"{len(entry.params)} params match "
                         f"({', '.join(str(p.size) for p in entry.params)} "
                         f"bytes)")
    ref_device = resolve_ref_device(args.ref_device)
    if ref is None:
        lines.append("reference: none (outputs only checked to be finite)")
    else:
        lines.append(f"reference: {ref.describe()} in float64 on "
                     f"{ref_device if ref.wants_xp else 'cpu'}")
        for out in plan.outputs():
            lines.append(f"  {out.name}: tolerance "
                         f"{tolerance_for(plan, out, args.rtol):.0e}")
    flops, source = plan_flops(plan, args)
    lines.append(f"timing: {args.warmup} warm-up + {args.iters} timed runs "
                 f"of the launch sequence, median of CUDA-event times"
                 + (f"; {flops:.4g} FLOP per run ({source})" if flops
                    else "") + "; then re-verify")
    if args.compare_cublas:
        m, n, k = args.compare_cublas
        lines.append(f"cuBLAS: torch.matmul {cublas_dtype(plan, args)} "
                     f"batch {args.batch} M={m} N={n} K={k}"
                     + (" (B stored [N,K])" if args.b_transposed else ""))
    for w in plan.warnings:
        lines.append(f"warning: {w}")
    lines.append(f"dry run: {plan.label} is valid; nothing was run.")
    print("\n".join(lines))
    result.update(status="ok", dry_run=True)
    return 0


def _summary(plan, result):
    parts = [f"[{result['status']}] {plan.label}"]
    checks = result.get("outputs") or []
    if checks:
        worst = max(checks, key=lambda c: c.get("rel_l2") or 0.0)
        if "rel_l2" in worst:
            parts.append(f"{worst['name']} rel_l2={worst['rel_l2']:.2e} "
                         f"max_abs/max|ref|={worst['max_abs_scaled']:.2e} "
                         f"tol={worst['tol']:.0e}")
        nonfinite = [f"{c['name']} {c['nonfinite']}" for c in checks
                     if c.get("nonfinite")]
        if nonfinite:
            parts.append("non-finite: " + ", ".join(nonfinite))
    if result.get("guards"):
        parts.append("guards damaged: " + ", ".join(
            f"{d['buffer']} {d['region']}" for d in result["guards"]))
    if result.get("inputs_modified"):
        parts.append("inputs written: " + ", ".join(result["inputs_modified"]))
    timing = result.get("timing")
    if timing:
        text = f"{timing['median_ms']:.4f} ms"
        if timing.get("tflops"):
            text += f" {timing['tflops']:.1f} TFLOP/s"
        parts.append(text)
    cub = result.get("cublas")
    if cub and "median_ms" in cub:
        text = (f"cuBLAS {cub['median_ms']:.4f} ms {cub['tflops']:.1f} "
                f"TFLOP/s")
        if timing:
            text += (f", plan at {cub['median_ms'] / timing['median_ms']:.2f}"
                     f"x cuBLAS speed")
        parts.append(text)
    rv = result.get("reverify")
    if rv and rv.get("status") != result["status"]:
        parts.append(f"re-verify {rv['status']}")
    if result.get("message") and result["status"] not in ("ok", "unchecked"):
        parts.append(result["message"].splitlines()[0])
    parts.append(f"seed {result['seed']}")
    return " | ".join(parts)


def verify_once(runner, plan, ref_outs, ref_xp, tol_override, sync_each):
    """Poison, run once, check guards, inputs and outputs; return a dict."""
    runner.poison()
    runner.run_sequence(sync_each=sync_each)
    runner.sync("launch sequence")
    res = {"guards": runner.check_guards(),
           "inputs_modified": runner.modified_inputs(), "outputs": []}
    statuses = []
    for i, out in enumerate(plan.outputs()):
        xp = ref_xp if ref_outs is not None else runner.cp
        got = runner.output_f64(out, xp)
        if ref_outs is not None:
            tol = tolerance_for(plan, out, tol_override)
            check = compare_output(xp, got, ref_outs[i], tol)
        else:
            nonfinite = int(got.size - int(xp.count_nonzero(xp.isfinite(got))))
            check = {"nonfinite": nonfinite, "ok": nonfinite == 0,
                     "unchecked": True}
        check["name"] = out.name
        check["dtype"] = out.dtype
        res["outputs"].append(check)
        del got
        if not check["ok"]:
            statuses.append("wrong-result")
    if res["guards"]:
        statuses.append("guard-damaged")
    if res["inputs_modified"]:
        statuses.append("wrong-result")
    if not statuses and ref_outs is None:
        statuses.append("unchecked")
    res["status"] = worst_status(*statuses)
    return res


def compute_reference(runner, plan, ref, ref_device, host_inputs):
    """Run REF.py on the float64 inputs; return (list of arrays, xp)."""
    cp = runner.cp
    if ref.wants_xp and ref_device == "gpu":
        xp = cp
        with runner.stream:
            inputs = [decode_to_f64(cp, runner.view[b.name], b.dtype)
                      for b in plan.inputs()]
    else:
        import numpy as xp
        inputs = [decode_to_f64(xp, host_inputs[b.name], b.dtype)
                  for b in plan.inputs()]
    t0 = time.perf_counter()
    try:
        with runner.stream:
            outs = ref.fn(xp, inputs) if ref.wants_xp else ref.fn(inputs)
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            outs = [xp.asarray(o, dtype=xp.float64) for o in outs]
        runner.stream.synchronize()
    except runner.errors:
        raise
    except Exception as e:
        raise ReferenceError_(f"reference() raised {type(e).__name__}: {e}\n"
                              + traceback.format_exc())
    seconds = time.perf_counter() - t0
    del inputs
    expected = plan.outputs()
    if len(outs) != len(expected):
        raise ReferenceError_(f"reference() returned {len(outs)} arrays, "
                              f"the plan has {len(expected)} outputs")
    for b, o in zip(expected, outs):
        if tuple(o.shape) != tuple(b.shape):
            raise ReferenceError_(f"reference() output for {b.name} has "
                                  f"shape {list(o.shape)}, the plan says "
                                  f"{list(b.shape)}")
        bad = int(o.size - int(xp.count_nonzero(xp.isfinite(o))))
        if bad:
            raise ReferenceError_(f"reference() output for {b.name} has "
                                  f"{bad} non-finite values")
    return outs, xp, seconds


def gpu_run(plan, ref, args, result):
    """The real run; fills ``result`` and returns the status."""
    import numpy as np

    try:
        import cupy as cp
    except ImportError as e:
        raise SystemExit(f"{TOOL}: cupy is needed for a real run ({e}); "
                         f"use --dry-run to only validate the plan")
    if args.device is not None:
        cp.cuda.Device(args.device).use()
    runner = GpuRunner(cp, np, plan, args.guard_bytes, args.timeout)
    result["device"] = runner.device
    log(f"device {runner.device['id']}: {runner.device['name']} "
        f"(sm_{runner.device['compute_capability'].replace('.', '')}), "
        f"driver {runner.device['driver_version']}, "
        f"cupy {runner.device['cupy_version']}")
    if plan.target and not plan.target.startswith(
            "sm_" + runner.device["compute_capability"].replace(".", "")):
        log(f"warning: plan target {plan.target} but the device is "
            f"compute capability {runner.device['compute_capability']}")

    try:
        runner.load_kernels()
    except LoadError as e:
        result["message"] = str(e)
        return "load-error"
    result["kernels"] = [dict(attrs, launch=launch.index,
                              kernel=launch.kernel)
                         for launch, _, _, attrs in runner.kernels]

    runner.allocate()
    runner.bind_args()
    t0 = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    host = {b.name: random_nonzero(np, rng, b.shape, b.dtype, b.verify_scale)
            for b in plan.inputs()}
    runner.upload_inputs(host)
    log(f"inputs generated and uploaded in {time.perf_counter() - t0:.2f} s")

    ref_outs = ref_xp = None
    if ref is not None:
        ref_device = resolve_ref_device(args.ref_device)
        try:
            ref_outs, ref_xp, secs = compute_reference(runner, plan, ref,
                                                       ref_device, host)
        except ReferenceError_ as e:
            result["message"] = str(e)
            return "reference-error"
        where = "gpu" if ref_xp is cp else "cpu"
        result["reference"] = {"file": ref.path, "device": where,
                               "seconds": secs}
        log(f"float64 reference computed on {where} in {secs:.2f} s")
    del host

    check = verify_once(runner, plan, ref_outs, ref_xp, args.rtol,
                        args.sync_each_launch)
    result.update(outputs=check["outputs"], guards=check["guards"],
                  inputs_modified=check["inputs_modified"])
    for c in check["outputs"]:
        if "rel_l2" in c:
            log(describe_output_check(c["name"], c))
    for d in check["guards"]:
        log(f"guard damaged: {d['buffer']} {d['region']} ({d['bytes']} "
            f"bytes, offsets {d['first_offset']}..{d['last_offset']})")
    if check["inputs_modified"]:
        log("input buffers written by the kernels: "
            + ", ".join(check["inputs_modified"]))
    status = check["status"]

    use_spin = not args.no_spin
    if args.iters > 0:
        timing = time_on_stream(runner, runner.run_sequence, args.warmup,
                                args.iters, use_spin, "plan")
        flops, source = plan_flops(plan, args)
        if flops:
            timing.update(flops=flops, flops_source=source,
                          tflops=flops / (timing["median_ms"] * 1e-3) / 1e12)
        result["timing"] = timing
        if timing["host_bound"]:
            log("warning: host launch overhead may have paced the timed runs")
        rv = verify_once(runner, plan, ref_outs, ref_xp, args.rtol, False)
        result["reverify"] = rv
        if rv["status"] != check["status"]:
            log(f"re-verify after timing: {rv['status']}")
            for c in rv["outputs"]:
                if "rel_l2" in c:
                    log("  " + describe_output_check(c["name"], c))
        status = worst_status(status, rv["status"])

    if args.compare_cublas:
        m, n, k = args.compare_cublas
        dtype = cublas_dtype(plan, args)
        try:
            result["cublas"] = time_cublas(
                runner, m, n, k, args.batch, dtype, args.b_transposed,
                args.warmup, max(args.iters, 1), use_spin, args.seed)
        except (KernelFault, KernelTimeout):
            raise
        except Exception as e:  # torch missing or unhappy: keep the result
            result["cublas"] = {"error": f"{type(e).__name__}: {e}"}
            log(f"cuBLAS comparison failed: {type(e).__name__}: {e}")
    return status


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="vibegemm_run_plan.py",
        description="Run a vibegemm launch plan with CuPy, check it against "
                    "a float64 reference and time it (optionally beside "
                    "cuBLAS).",
        epilog="Exit status: 0 ok, 1 wrong-result/guard-damaged, "
               "2 plan/load/reference error, 3 fault/timeout.")
    p.add_argument("plan", help="launch plan JSON (version 1)")
    p.add_argument("--reference", metavar="REF.py",
                   help="file defining reference(xp, inputs) -> outputs")
    p.add_argument("--seed", type=int,
                   help="input RNG seed (default: from the clock, printed)")
    p.add_argument("--iters", type=int, default=50,
                   help="timed runs (0: no timing; default 50)")
    p.add_argument("--warmup", type=int, default=10,
                   help="warm-up runs before timing (default 10)")
    p.add_argument("--json", metavar="OUT.json",
                   help="write every number to this file")
    p.add_argument("--dry-run", action="store_true",
                   help="validate and describe the plan; import no cupy")
    p.add_argument("--flops", type=float,
                   help="FLOPs per run of the plan, for TFLOP/s")
    p.add_argument("--ref-device", choices=("auto", "gpu", "cpu"),
                   default="auto",
                   help="where the float64 reference runs (auto: gpu when "
                        "cupy is installed)")
    p.add_argument("--rtol", type=float,
                   help="override the per-dtype tolerance")
    p.add_argument("--compare-cublas", nargs=3, type=int,
                   metavar=("M", "N", "K"),
                   help="also time cuBLAS (torch.matmul) on this GEMM shape")
    p.add_argument("--batch", type=int, default=1,
                   help="batch count for --compare-cublas (default 1)")
    p.add_argument("--dtype", choices=("f32", "f16", "bf16"),
                   help="cuBLAS operand dtype (default: from the plan's "
                        "inputs)")
    p.add_argument("--b-transposed", action="store_true",
                   help="cuBLAS B operand stored [N,K] (like nn.Linear)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds to wait for a launch sequence before "
                        "reporting a hang (default 60)")
    p.add_argument("--guard-bytes", type=int, default=4096,
                   help="guard bytes before and after each buffer "
                        "(default 4096)")
    p.add_argument("--sync-each-launch", action="store_true",
                   help="synchronize after every launch of the checked run, "
                        "to tell which launch faults")
    p.add_argument("--no-spin", action="store_true",
                   help="do not hold the GPU with a spin kernel while the "
                        "timed runs are queued")
    p.add_argument("--device", type=int, help="CUDA device ordinal")
    args = p.parse_args(argv)
    if args.iters < 0 or args.warmup < 0:
        p.error("--iters and --warmup must be >= 0")
    if args.guard_bytes < 0 or args.guard_bytes % 256:
        p.error("--guard-bytes must be a non-negative multiple of 256 (so "
                "buffers stay aligned)")
    if args.compare_cublas and (min(args.compare_cublas) < 1
                                or args.batch < 1):
        p.error("--compare-cublas M N K and --batch must be positive")
    if args.timeout <= 0:
        p.error("--timeout must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.seed is None:
        args.seed = time.time_ns() % (2 ** 32)
        log(f"seed {args.seed} (from the clock; pass --seed to repeat)")
    result = {"tool": TOOL, "plan": os.path.abspath(args.plan),
              "seed": args.seed, "status": None}
    exit_fast = False
    try:
        plan = load_plan(args.plan)
    except PlanError as e:
        for w in e.warnings:
            log(f"warning: {w}")
        for err in e.errors:
            print(f"{TOOL}: plan error: {err}", file=sys.stderr)
        result.update(status="plan-error", message="; ".join(e.errors),
                      errors=e.errors)
        print(f"[plan-error] {os.path.basename(args.plan)} | "
              f"{len(e.errors)} problem(s): {e.errors[0]}")
        write_json(args.json, result)
        return STATUS_EXIT["plan-error"]
    result.update(function=plan.function, dispatch=plan.dispatch,
                  target=plan.target, warnings=plan.warnings)
    if args.compare_cublas and cublas_dtype(plan, args) is None:
        msg = "--compare-cublas needs --dtype (no f32/f16/bf16 plan input)"
        print(f"{TOOL}: {msg}", file=sys.stderr)
        result.update(status="error", message=msg)
        write_json(args.json, result)
        return 2

    ref = None
    if args.reference:
        try:
            ref = load_reference(args.reference)
        except ReferenceError_ as e:
            result.update(status="reference-error", message=str(e))
            print(f"[reference-error] {plan.label} | {e}")
            write_json(args.json, result)
            return STATUS_EXIT["reference-error"]

    if args.dry_run:
        code = dry_run(plan, ref, args, result)
        write_json(args.json, result)
        return code

    for w in plan.warnings:
        log(f"warning: {w}")
    try:
        status = gpu_run(plan, ref, args, result)
    except KernelFault as e:
        _KEEP_ALIVE.append(e)
        status, exit_fast = "fault", True
        result["message"] = str(e)
        print(f"{TOOL}: CUDA fault: {e}", file=sys.stderr)
    except KernelTimeout as e:
        _KEEP_ALIVE.append(e)
        status, exit_fast = "timeout", True
        result["message"] = str(e)
        print(f"{TOOL}: timeout: {e}", file=sys.stderr)
    except Exception as e:
        _KEEP_ALIVE.append(e)
        status, exit_fast = "error", True
        cp = sys.modules.get("cupy")
        if cp is not None and isinstance(e, cuda_error_types(cp)):
            status = "fault"
        result["message"] = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    result["status"] = status
    if status in ("load-error", "reference-error"):
        print(f"{TOOL}: {status}: {result.get('message')}", file=sys.stderr)
    print(_summary(plan, result), flush=True)
    write_json(args.json, result)
    code = STATUS_EXIT.get(status, 2)
    if exit_fast:
        # A faulted or hung context cannot be torn down cleanly; leave now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
