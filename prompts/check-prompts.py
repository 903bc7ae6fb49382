#!/usr/bin/env python3
"""Checks that the prompt files agree with the compiler they describe.

1. allowlist.txt lists every transform op of every built-in schedule
   (staged, direct, split, reference and CPU-check variants) for the example
   and e2e inputs, found by walking the generic form of the scripts, and
   the system prompt's op reference names each of them.
2. allowed-ops.md documents exactly the allowlisted ops.
3. Every ```mlir example in allowed-ops.md parses and verifies.
4. The worked example in system.md compiles through the transform
   interpreter and vibegemm-lower-to-ptx (and ptxas without spills, when a
   ptxas is found).
5. The templates use only the placeholders the C++ fills, system.md only
   run-wide ones (so every request of a run sends the same system
   prompt), and round.md fences {{BEST_SCHEDULE}} as an mlir block.
6. allowed-ops.md's markup (tag lines, `more` splits) is well formed.

Usage, from anywhere: python3 prompts/check-prompts.py [--opt PATH] [--ptxas PATH]
Exit status 0 when everything holds.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

INPUTS = [
    "examples/gemm_f32.mlir",
    "examples/gemm_bias_gelu_bf16.mlir",
    "examples/mlp_block_f16.mlir",
    "test/e2e/batch-matmul-f16.mlir",
    "test/e2e/ragged-f32.mlir",
    "test/e2e/ragged-k-f32.mlir",
    "test/e2e/softmax-after-gemm.mlir",
    "test/e2e/accumulate-input-f32.mlir",
]
VARIANTS = ["", "{cpu-check=true}", "{reference=true}"]
PROMPTED_INPUT = "docs/benchmarks/2026-12-07-tuning-at-scale/qwen2.5-7b-linears.mlir"
PLACEHOLDERS = {
    "DISPATCH_NAME", "SEQUENCE_NAME", "DISPATCH_IR", "PROBLEM",
    "TARGET_FACTS", "ROOFLINE", "BEST_SCHEDULE", "BEST_SUMMARY", "HISTORY",
    "ROUND", "ROUNDS", "CANDIDATE", "CANDIDATES", "ALLOWED_OPS",
    "OP_REFERENCE", "VENDOR_TIME",
}
# What system.md may use: the same for every request of a run.
RUN_WIDE = {"TARGET_FACTS", "ALLOWED_OPS", "ROUNDS", "CANDIDATES"}
# Tag keys and values of allowed-ops.md (lib/Tuner/Prompts.cpp reads them).
TAG_VALUES = {"system": {"brief", "name", "omit"},
              "needs": {"wgmma", "tma", "clusters"}}
# Handles the allowed-ops.md examples may use without defining them.
PREAMBLE = """\
  %mm = transform.structured.match ops{["linalg.matmul"]} in %func : (!transform.any_op) -> !transform.any_op
  %op = transform.structured.match interface{LinalgOp} in %func : (!transform.any_op) -> !transform.any_op
  %forall = transform.structured.match ops{["scf.forall"]} in %func : (!transform.any_op) -> !transform.any_op
  %loop = transform.structured.match ops{["scf.for"]} in %func : (!transform.any_op) -> !transform.any_op
  %for = transform.structured.match ops{["scf.for"]} in %func : (!transform.any_op) -> !transform.op<"scf.for">
  %pad = transform.structured.match ops{["tensor.pad"]} in %func : (!transform.any_op) -> !transform.any_op
  %p = transform.param.constant 4 : i64 -> !transform.param<i64>
  %allocas = transform.structured.match ops{["memref.alloca"]} in %func : (!transform.any_op) -> !transform.op<"memref.alloca">
  %allocs = transform.structured.match ops{["memref.alloc"]} in %func : (!transform.any_op) -> !transform.op<"memref.alloc">
  %launch = transform.structured.match ops{["gpu.launch"]} in %func : (!transform.any_op) -> !transform.any_op
  %v = transform.get_result %mm[0] : (!transform.any_op) -> !transform.any_value
"""
DUMMY = ("transform.named_sequence @gemm_d0(%func: !transform.any_op "
         "{transform.consumed}) {\n  transform.yield\n}\n")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def read(name):
    with open(os.path.join(HERE, name)) as f:
        return f.read()


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def module(body):
    return "module attributes {transform.with_named_sequence} {\n" + body + "}\n"


def check_allowlist(opt, allow, tmp):
    used, shown = {}, {}
    # What the best schedule of a request can show (the default variant;
    # the Qwen linears add split-K and block-reduce decode schedules).
    for path in INPUTS + [PROMPTED_INPUT]:
        r = run([opt, os.path.join(ROOT, path), "--vibegemm-form-dispatches",
                 "--vibegemm-builtin-schedule=target=sm_90a", "--mlir-print-op-generic"])
        for name in re.findall(r'"(transform\.[a-z_.0-9]+)"\(', r.stdout):
            shown.setdefault(name, path)
    for path in INPUTS:
        for variant in VARIANTS:
            r = run([opt, os.path.join(ROOT, path), "--vibegemm-form-dispatches",
                     "--vibegemm-builtin-schedule" + (("=" + variant[1:-1]) if variant else ""),
                     "--mlir-print-op-generic"])
            if r.returncode:
                fail("built-in schedule for %s %s: %s" % (path, variant, r.stderr[:300]))
                continue
            for name in re.findall(r'"(transform\.[a-z_.0-9]+)"\(', r.stdout):
                used.setdefault(name, "%s %s" % (path, variant or "{}"))
    # The replayable artifacts (<dispatch>.schedule.mlir) add the wrapper.
    for path in INPUTS:
        art = os.path.join(tmp, "artifacts", os.path.basename(path))
        r = run([opt, os.path.join(ROOT, path),
                 "--llm-schedule=artifacts-dir=%s measure=off" % art, "-o", os.devnull])
        if r.returncode:
            fail("llm-schedule on %s: %s" % (path, r.stderr[:300]))
            continue
        for sched in sorted(f for f in os.listdir(art) if f.endswith(".schedule.mlir")):
            g = run([opt, os.path.join(art, sched), "--mlir-print-op-generic"])
            for name in re.findall(r'"(transform\.[a-z_.0-9]+)"\(', g.stdout):
                used.setdefault(name, "%s (%s)" % (path, sched))
    omitted = set(re.findall(r"^### `([^`]+)`\n<!-- system: omit", read("allowed-ops.md"), re.M))
    for name, where in sorted(used.items()):
        if name not in allow:
            fail("%s (used by the built-in schedule of %s) is not in allowlist.txt" % (name, where))
    for name, where in sorted(shown.items()):
        # The best schedule shown in a request may use it, so the system
        # prompt must at least name it.
        if name in omitted:
            fail("%s (used by the built-in schedule of %s) is omitted from the "
                 "system prompt's op reference" % (name, where))
    print("built-in schedules use %d distinct transform ops; all allowlisted: %s"
          % (len(used), all(n in allow for n in used)))


def check_docs(opt, allow, tmp):
    md = read("allowed-ops.md")
    documented = set(re.findall(r"^### `(transform\.[a-z_.0-9]+)`", md, re.M))
    for name in sorted(documented - allow):
        fail("allowed-ops.md documents %s, which allowlist.txt does not list" % name)
    for name in sorted(allow - documented):
        fail("allowlist.txt lists %s, which allowed-ops.md does not document" % name)
    blocks = re.findall(r"```mlir\n(.*?)```", md, re.S)
    for i, block in enumerate(blocks):
        if block.startswith("transform.named_sequence"):
            body = block.replace("@gemm_d0", "@t%d" % i)
        else:
            tail = "" if block.strip() == "transform.yield" else "  transform.yield\n"
            body = ("transform.named_sequence @t%d(%%func: !transform.any_op "
                    "{transform.consumed}) {\n%s%s%s}\n" % (i, PREAMBLE, block, tail))
        path = os.path.join(tmp, "example%d.mlir" % i)
        with open(path, "w") as f:
            f.write(module(DUMMY + body))
        r = run([opt, path, "-o", os.devnull])
        if r.returncode:
            first = block.strip().splitlines()[0]
            fail("allowed-ops.md example does not parse: %s\n%s" % (first, r.stderr[:500]))
    # Pattern sets: the headings plus the variants written as `op args`.
    patterns = set(re.findall(r"^### `(transform\.apply_patterns\.[a-z_.0-9]+)`", md, re.M))
    patterns |= set(re.findall(r"^`(transform\.apply_patterns\.[^`]+)`", md, re.M))
    body = ("transform.named_sequence @p(%func: !transform.any_op {transform.readonly}) {\n"
            "  transform.apply_patterns to %func {\n"
            + "".join("    %s\n" % p for p in sorted(patterns))
            + "  } {apply_cse} : !transform.any_op\n  transform.yield\n}\n")
    path = os.path.join(tmp, "patterns.mlir")
    with open(path, "w") as f:
        f.write(module(body))
    r = run([opt, path, "-o", os.devnull])
    if r.returncode:
        fail("allowed-ops.md pattern sets do not parse:\n" + r.stderr[:800])
    print("allowed-ops.md: %d ops documented, %d examples, %d pattern-set lines checked"
          % (len(documented), len(blocks), len(patterns)))


def check_markup():
    md = read("allowed-ops.md")
    sections = re.split(r"^### ", md, flags=re.M)[1:]
    for section in sections:
        lines = section.split("\n")
        name = lines[0]
        for i, line in enumerate(lines[1:], 1):
            m = re.match(r"^<!--(.*)-->$", line.strip())
            if not m:
                continue
            text = m.group(1).strip()
            if text == "more":
                if lines[1:].count("<!-- more -->") > 1:
                    fail("allowed-ops.md %s: more than one <!-- more -->" % name)
                continue
            if i != 1:
                fail("allowed-ops.md %s: a tag line must follow the heading: %s"
                     % (name, line))
            for tag in text.split(";"):
                key, _, values = tag.partition(":")
                key = key.strip()
                for value in values.split(","):
                    if value.strip() not in TAG_VALUES.get(key, ()):
                        fail("allowed-ops.md %s: unknown tag %s" % (name, tag.strip()))
        brief = section.split("<!-- more -->")[0]
        if "system: name" not in section and "system: omit" not in section \
                and "```mlir" not in brief and "apply_patterns." not in name:
            fail("allowed-ops.md %s: the part the system prompt shows has no "
                 "example" % name)
    print("allowed-ops.md markup: %d sections" % len(sections))


def extract_ptx(text):
    out = []
    for m in re.finditer(r'assembly = "((?:[^"\\]|\\.)*)"', text):
        s, b, i = m.group(1), bytearray(), 0
        while i < len(s):
            if s[i] == "\\":
                if s[i + 1] in '\\"':
                    b += s[i + 1].encode()
                    i += 2
                else:
                    b.append(int(s[i + 1:i + 3], 16))
                    i += 3
            else:
                b += s[i].encode()
                i += 1
        out.append(b.decode())
    return "\n".join(out)


def check_worked_example(opt, ptxas, tmp):
    system = read("system.md")
    blocks = [b for b in re.findall(r"```mlir\n(.*?)```", system, re.S)
              if "{{SEQUENCE_NAME}}" not in b]
    if len(blocks) != 1:
        fail("system.md should hold exactly one complete example script, found %d" % len(blocks))
        return
    script = blocks[0]
    name = re.search(r"transform\.named_sequence @(\w+)", script).group(1)
    lib = os.path.join(tmp, "worked.mlir")
    with open(lib, "w") as f:
        wrapper = (
            "transform.named_sequence @__transform_main(%m: !transform.any_op {transform.readonly}) {\n"
            "  %f = transform.structured.match ops{[\"func.func\"]} attributes{sym_name = \"NAME\"} in %m"
            " : (!transform.any_op) -> !transform.any_op\n"
            "  transform.include @NAME failures(propagate) (%f) : (!transform.any_op) -> ()\n"
            "  transform.yield\n}\n").replace("NAME", name)
        f.write(module(script + wrapper))
    dispatches = os.path.join(tmp, "gemm_f32.dispatches.mlir")
    r = run([opt, os.path.join(ROOT, "examples/gemm_f32.mlir"),
             "--vibegemm-form-dispatches", "-o", dispatches])
    if r.returncode:
        fail("forming dispatches: " + r.stderr[:300])
        return
    out = os.path.join(tmp, "worked.out.mlir")
    r = run([opt, dispatches, "--transform-preload-library=transform-library-paths=" + lib,
             "--transform-interpreter", "--vibegemm-lower-to-ptx", "-o", out])
    if r.returncode:
        fail("the worked example in system.md does not compile:\n" + r.stderr[:1500])
        return
    with open(out) as f:
        ptx = extract_ptx(f.read())
    fmas = ptx.count("fma.rn.f32")
    print("worked example compiles (%d fma.rn.f32 in the PTX)" % fmas)
    if not ptxas:
        print("no ptxas: resources not checked")
        return
    ptx_path = os.path.join(tmp, "worked.ptx")
    with open(ptx_path, "w") as f:
        f.write(ptx)
    r = run([ptxas, "-arch=sm_90", "-v", ptx_path, "-o", os.devnull])
    if r.returncode:
        fail("ptxas rejects the worked example:\n" + r.stderr[:800])
        return
    spills = re.findall(r"(\d+) bytes spill stores", r.stderr)
    if any(int(s) for s in spills):
        fail("the worked example spills: " + r.stderr)
    used = re.findall(r"Used \d+ registers.*", r.stderr)
    print("ptxas: " + "; ".join(used))


def check_templates():
    for name in ("system.md", "round.md"):
        text = read(name)
        for key in re.findall(r"\{\{(.*?)\}\}", text):
            if key not in PLACEHOLDERS:
                fail("%s uses unknown placeholder {{%s}}" % (name, key))
    round_text = read("round.md")
    if "```mlir\n{{BEST_SCHEDULE}}\n```" not in round_text:
        fail("round.md must fence {{BEST_SCHEDULE}} as an mlir block")
    for key in ("DISPATCH_NAME", "SEQUENCE_NAME", "DISPATCH_IR", "PROBLEM",
                "ROOFLINE", "BEST_SCHEDULE", "BEST_SUMMARY", "HISTORY",
                "ROUND", "ROUNDS", "CANDIDATE", "CANDIDATES", "OP_REFERENCE"):
        if "{{%s}}" % key not in round_text:
            fail("round.md does not use {{%s}}" % key)
    system = read("system.md")
    for key in ("TARGET_FACTS", "ALLOWED_OPS"):
        if "{{%s}}" % key not in system:
            fail("system.md does not use {{%s}}" % key)
    for key in set(re.findall(r"\{\{(.*?)\}\}", system)) - RUN_WIDE:
        fail("system.md uses {{%s}}, which differs between requests of a run "
             "(put it in round.md)" % key)
    for name in ("system.md", "round.md", "allowed-ops.md", "allowlist.txt"):
        if ')vgembed"' in read(name):
            fail("%s contains the embedding delimiter" % name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt", default=os.path.join(ROOT, "build/bin/vibegemm-opt"))
    parser.add_argument("--ptxas", default=shutil.which("ptxas") or
                        ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None))
    args = parser.parse_args()
    allow = set()
    for line in read("allowlist.txt").splitlines():
        line = line.split("#")[0].strip()
        if line:
            allow.add(line)
    print("allowlist.txt: %d ops" % len(allow))
    with tempfile.TemporaryDirectory() as tmp:
        check_templates()
        check_markup()
        check_allowlist(args.opt, allow, tmp)
        check_docs(args.opt, allow, tmp)
        check_worked_example(args.opt, args.ptxas, tmp)
    if failures:
        print("%d problem(s)" % len(failures))
        return 1
    print("all prompt checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
