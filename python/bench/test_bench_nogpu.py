#!/usr/bin/env python3
"""Tests of the benchmark harness that need no GPU and no torch.

The MLIR of every problem (at full size) must parse and form exactly one
dispatch with ``vibegemm-opt --vibegemm-form-dispatches`` (skipped when the
tool is not built; set VIBEGEMM_OPT or put it in build/bin); plan lookup;
the report (table.md, plot.png with the built-in PNG writer, README.md)
from a synthetic results.json holding successes and every kind of failure.
Run: ``python3 -m unittest -v test_bench_nogpu`` from python/bench.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import types
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench  # noqa: E402
import edge_cases  # noqa: E402
import png  # noqa: E402
import problems  # noqa: E402
import report  # noqa: E402
import vibegemm_side  # noqa: E402


def find_opt():
    for cand in (os.environ.get("VIBEGEMM_OPT"),
                 os.path.join(ROOT, "build", "bin", "vibegemm-opt")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def synthetic_results(suite=None):
    """A results.json as ``bench.py run`` writes it, with made-up numbers.

    Covers: ok rows, a compile error, a wrong result, a harness timeout, a
    torch.compile failure and mismatch, and a CUDA-graph-timed column.
    """
    suite = suite or problems.suite()
    recs = []
    for i, p in enumerate(suite):
        ms = 1.0 + i
        col = {"status": "ok", "time_ms": ms * 0.5, "tflops": 1.0,
               "timing": {"method": "cuda-events", "runs": 50, "median_ms": ms * 0.5}}
        rec = {"problem": bench.problem_record(p),
               "compile": {"status": "ok", "seconds": 0.2, "plan": f"{p.name}_d0.plan.json"},
               "vibegemm": {"status": "ok", "result": {
                   "status": "ok", "diagnostic": "", "time_ms": ms,
                   "tflops": p.flops / ms / 1e9,
                   "timing": {"method": "events", "runs": 50, "median_ms": ms},
                   "outputs": [{"name": "res0", "rel_l2": 1e-6, "ok": True}],
                   "cublas": {"time_ms": ms * 0.5, "tflops": 2.0}}},
               "cublas": copy.deepcopy(col), "eager": copy.deepcopy(col),
               "torch_compile": dict(copy.deepcopy(col), compile_s=3.2, check="ok",
                                     max_rel_err_vs_eager=1e-7),
               "max_autotune": (dict(copy.deepcopy(col), time_ms=ms * 0.4, compile_s=95.0,
                                     check="ok", max_rel_err_vs_eager=1e-7)
                                if p.dtype == "bf16" else {"status": "skipped"})}
        recs.append(rec)
    if len(recs) > 4:
        boom = "input.mlir:7:10: error: boom"
        recs[1]["compile"] = {"status": "error", "first_error": boom}
        recs[1]["vibegemm"] = {"status": "not-compiled", "diagnostic": boom}
        recs[2]["vibegemm"]["status"] = "wrong-result"
        recs[2]["vibegemm"]["result"]["status"] = "wrong-result"
        recs[2]["vibegemm"]["diagnostic"] = "res0: rel_l2 0.5 > 1e-4"
        recs[3]["vibegemm"] = {"status": "harness-timeout",
                               "diagnostic": "vibegemm-run gave no result in 300 s"}
        recs[4]["torch_compile"] = {"status": "error", "error": "BackendCompilerFailed: no cc"}
        recs[0]["torch_compile"]["check"] = "mismatch"
        recs[0]["torch_compile"]["max_rel_err_vs_eager"] = 0.3
        recs[0]["eager"]["timing"]["method"] = "cuda-graph-replay"
    return {"version": 1, "created": "2026-12-02T12:00:00+00:00",
            "command": "python3 python/bench/bench.py run --out bench-out --vibegemm-run X",
            "environment": {"torch": "2.11.0", "cuda": "13.0", "python": "3.12.3",
                            "device": {"name": "NVIDIA H200", "compute_capability": "9.0",
                                       "sms": 132, "memory_gib": 139.8, "l2_mib": 60.0},
                            "nvidia_smi": "580.159.04, 1980 MHz, 700.00 W", "matplotlib": None},
            "config": {"iters": 50, "warmup": 5, "timing": "events"},
            "compile": {"command": "python3 python/bench/bench.py compile --out bench-out",
                        "source": {"commit": "abc123", "dirty": False}},
            "problems": recs, "skipped": [], "finished": True}


class ProblemsTest(unittest.TestCase):
    def test_suite_names_unique_and_both_dtypes(self):
        names = [p.name for p in problems.suite()]
        self.assertEqual(len(names), len(set(names)))
        # 14 KernelBench shapes in f32 and bf16, then 7 bf16 anchor shapes.
        self.assertEqual(len(names), 35)
        self.assertEqual(sum(p.level == 0 for p in problems.suite()), 7)
        for p in problems.suite():
            self.assertRegex(p.name, r"^[a-z0-9_]+$")

    def test_anchor_shapes(self):
        by = {p.name: p for p in problems.suite()}
        irr = by["l1_irregular_f32"]
        self.assertEqual((irr.m, irr.n, irr.k), (8205, 2949, 5921))
        self.assertEqual(by["l1_batched_bf16"].batch, 128)
        self.assertEqual(by["l2_scale_residual_f32"].m, 16384)

    def test_mlir_text(self):
        for p in problems.suite():
            text = problems.mlir(p)
            self.assertIn(f"func.func @{p.name}(", text)
            self.assertIn("linalg.fill", text)
            self.assertEqual(text.count("{"), text.count("}"), p.name)
            op = "linalg.batch_matmul" if p.batch > 1 else "linalg.matmul"
            self.assertIn(op, text)
            if p.dtype == "bf16":
                self.assertIn("arith.truncf", text)
            if p.epilogue == "gelu_softmax":
                self.assertIn("linalg.softmax dimension(1)", text)
            # Every operand shape appears in the signature.
            for s in problems.input_shapes(p):
                self.assertIn("x".join(map(str, s)) + "x" + p.dtype, text)

    def test_forms_one_dispatch(self):
        opt = find_opt()
        if not opt:
            self.skipTest("vibegemm-opt not built (set VIBEGEMM_OPT)")
        with tempfile.TemporaryDirectory() as tmp:
            for p in problems.suite():
                src = os.path.join(tmp, p.name + ".mlir")
                with open(src, "w") as f:
                    f.write(problems.mlir(p))
                r = subprocess.run([opt, "--vibegemm-form-dispatches", src],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 0, f"{p.name}: {r.stderr[:2000]}")
                self.assertEqual(len(re.findall(r"vibegemm\.dispatch", r.stdout)), 1, p.name)


class EdgeCasesTest(unittest.TestCase):
    def test_parse_spec(self):
        p = edge_cases.parse("4x1000x1001x1003:tn:bias_relu", "f32", "f")
        self.assertEqual((p.batch, p.m, p.n, p.k), (4, 1000, 1001, 1003))
        self.assertEqual((p.trans_a, p.trans_b), (True, False))
        self.assertEqual(p.epilogue, "bias_relu")
        self.assertEqual(p.name, "f4x1000x1001x1003_tn_bias_relu_f32")
        for bad in ("1x2x3:nn", "1x2x3x0:nn", "1x2x3x4:nx", "1x2x3x4",
                    "1x2x3x4:nn:nosuch"):
            with self.assertRaises(ValueError, msg=bad):
                edge_cases.parse(bad, "f32", "f")

    def test_writes_one_file_per_spec(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(edge_cases.main(
                [d, "bf16", "w", "1x64x64x64:nn", "2x64x32x16:nt"]), 0)
            self.assertEqual(sorted(os.listdir(d)),
                             ["w1x64x64x64_nn_bf16.mlir",
                              "w2x64x32x16_nt_bf16.mlir"])
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(edge_cases.main([d, "f32", "w", "bad"]), 2)


class VibegemmSideTest(unittest.TestCase):
    def test_find_plan(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(vibegemm_side.find_plan(os.path.join(tmp, "no"), "f")[0], None)
            open(os.path.join(tmp, "f_d0.plan.json"), "w").close()
            self.assertEqual(vibegemm_side.find_plan(tmp, "f")[0], "f_d0.plan.json")
            open(os.path.join(tmp, "f_d1.plan.json"), "w").close()
            self.assertIsNone(vibegemm_side.find_plan(tmp, "f")[0])
            open(os.path.join(tmp, "f.plan.json"), "w").close()
            self.assertEqual(vibegemm_side.find_plan(tmp, "f")[0], "f.plan.json")

    def test_first_error(self):
        err = "x.mlir:1:1: note: hi\nx.mlir:7:10: error: kernel too big\nmore\n"
        self.assertEqual(vibegemm_side.first_error(err), "x.mlir:7:10: error: kernel too big")
        self.assertEqual(vibegemm_side.first_error("only this\n"), "only this")

    def test_run_plan_records_json_and_failures(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "vibegemm-run")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho 'noise'\n"
                        "echo '{\"status\": \"wrong-result\", \"diagnostic\": \"bad\", "
                        "\"time_ms\": 2.5}'\nexit 1\n")
            os.chmod(fake, 0o755)
            rec = vibegemm_side.run_plan(fake, "p.plan.json", 30)
            self.assertEqual(rec["status"], "wrong-result")
            self.assertEqual(rec["returncode"], 1)
            self.assertEqual(rec["result"]["time_ms"], 2.5)
            self.assertIn("--compare=cublas", rec["command"])
            rec = vibegemm_side.run_plan(os.path.join(tmp, "missing"), "p.plan.json", 30)
            self.assertEqual(rec["status"], "harness-error")


class RunStageTest(unittest.TestCase):
    """``bench.py run`` with a stand-in torch_side and a fake vibegemm-run."""

    def setUp(self):
        fake = types.ModuleType("torch_side")
        fake.TIMING_NOTE = "fake"
        fake.environment = lambda: {"torch": "fake", "device": {"name": "none"}}
        col = {"status": "ok", "time_ms": 1.0, "tflops": 1.0}
        fake.measure = lambda p, **kw: {"cublas": dict(col), "eager": dict(col),
                                        "torch_compile": {"status": "skipped"}}
        self._saved = sys.modules.get("torch_side")
        sys.modules["torch_side"] = fake

    def tearDown(self):
        if self._saved is None:
            sys.modules.pop("torch_side", None)
        else:
            sys.modules["torch_side"] = self._saved

    def test_run_resume_and_failures(self):
        with tempfile.TemporaryDirectory() as tmp:
            runner = os.path.join(tmp, "vibegemm-run")
            with open(runner, "w") as f:
                f.write("#!/bin/sh\necho '{\"status\": \"ok\", \"time_ms\": 4.0}'\n")
            os.chmod(runner, 0o755)
            out = os.path.join(tmp, "out")
            good = os.path.join(out, "l1_square_f32")
            os.makedirs(os.path.join(good, "artifacts"))
            with open(os.path.join(good, "compile.json"), "w") as f:
                f.write('{"status": "ok", "plan": "l1_square_f32_d0.plan.json"}')
            bad = os.path.join(out, "l1_square_bf16")
            os.makedirs(bad)
            with open(os.path.join(bad, "compile.json"), "w") as f:
                f.write('{"status": "error", "first_error": "error: nope"}')
            with contextlib.redirect_stderr(io.StringIO()):
                bench.main(["run", "--out", out, "--vibegemm-run", runner,
                            "--only", "^l1_square"])
            with open(os.path.join(out, "results.json")) as f:
                res = json.load(f)
            self.assertTrue(res["finished"])
            recs = {r["problem"]["name"]: r for r in res["problems"]}
            self.assertEqual(recs["l1_square_f32"]["vibegemm"]["result"]["time_ms"], 4.0)
            self.assertEqual(recs["l1_square_bf16"]["vibegemm"]["status"], "not-compiled")
            # --resume keeps both and runs only what is missing (l1_standard*,
            # never compiled here).
            with contextlib.redirect_stderr(io.StringIO()):
                bench.main(["run", "--out", out, "--vibegemm-run", runner, "--resume",
                            "--only", "^l1_s"])
            with open(os.path.join(out, "results.json")) as f:
                res = json.load(f)
            names = [r["problem"]["name"] for r in res["problems"]]
            self.assertEqual(names[:2], ["l1_square_f32", "l1_square_bf16"])
            self.assertIn("l1_standard_f32", names)
            self.assertIn("l1_small_k_bf16", names)


    def test_run_times_a_chains_gemm_alone(self):
        # A level-2 problem's folder holds its GEMM alone (bench.py compile
        # writes it); the run times both plans.
        with tempfile.TemporaryDirectory() as tmp:
            runner = os.path.join(tmp, "vibegemm-run")
            with open(runner, "w") as f:
                f.write("#!/bin/sh\ncase \"$*\" in *gemm-alone*) t=3.0;; *) t=3.09;; esac\n"
                        "echo \"{\\\"status\\\": \\\"ok\\\", \\\"time_ms\\\": $t}\"\n")
            os.chmod(runner, 0o755)
            out = os.path.join(tmp, "out")
            chain = os.path.join(out, "l2_bias_relu_bf16")
            for d in (chain, os.path.join(chain, bench.GEMM_ALONE)):
                os.makedirs(os.path.join(d, "artifacts"))
                with open(os.path.join(d, "compile.json"), "w") as f:
                    f.write('{"status": "ok", "plan": "l2_bias_relu_bf16_d0.plan.json"}')
            with contextlib.redirect_stderr(io.StringIO()):
                bench.main(["run", "--out", out, "--vibegemm-run", runner,
                            "--only", "^l2_bias_relu_bf16", "--no-compile-torch"])
            with open(os.path.join(out, "results.json")) as f:
                rec = json.load(f)["problems"][0]
        self.assertEqual(rec["vibegemm"]["result"]["time_ms"], 3.09)
        self.assertEqual(rec["vibegemm_gemm_alone"]["result"]["time_ms"], 3.0)
        self.assertEqual(problems.gemm_alone(problems.suite()[20]).epilogue, "none")


class ReportTest(unittest.TestCase):
    def test_fusion_table(self):
        res = synthetic_results()
        chains = [r for r in res["problems"] if r["problem"]["level"] == 2
                  and r["vibegemm"]["status"] == "ok"]
        for r in chains:
            t = r["vibegemm"]["result"]["time_ms"]
            r["vibegemm_gemm_alone"] = {"status": "ok", "result": {
                "status": "ok", "time_ms": t / 1.02}}
        table = report.table_md(res)
        self.assertIn("| problem | dtype | chain ms | GEMM alone ms | chain / GEMM |", table)
        rows = [ln for ln in table.split("What fusing costs")[1].splitlines()
                if ln.startswith("| l2_")]
        self.assertEqual(len(rows), len(chains))
        self.assertTrue(all(ln.endswith("| 1.02 |") for ln in rows), rows)
        # Without GEMM-alone times, no such table.
        self.assertNotIn("What fusing costs", report.table_md(synthetic_results()))

    def test_table_and_files(self):
        res = synthetic_results()
        with tempfile.TemporaryDirectory() as tmp:
            paths = report.write_all(res, os.path.join(tmp, "h200-test"),
                                     reproduce_gpu="bash utils/dist/with-libs.sh X")
            self.assertEqual(len(paths), 4)
            with open(os.path.join(tmp, "h200-test", "table.md")) as f:
                table = f.read()
            with open(os.path.join(tmp, "h200-test", "README.md")) as f:
                readme = f.read()
            with open(os.path.join(tmp, "h200-test", "plot.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        lines = [ln for ln in table.splitlines() if re.match(r"\| l[12]_", ln)]
        self.assertEqual(len(lines), 28)
        ncols = table.splitlines()[0].count("|")
        for ln in lines:
            self.assertEqual(ln.count("|") - ln.count("\\|"), ncols, ln)
        self.assertIn("compile error [", table)
        self.assertIn("wrong-result [", table)
        self.assertIn("harness-timeout [", table)
        self.assertIn("| 2 | bf16 |", table)   # geometric-mean row
        self.assertIn("\nbash utils/dist/with-libs.sh X\n", readme)
        self.assertNotIn("REPRODUCE-GPU", readme)
        self.assertIn("NVIDIA H200", readme)
        # l1_square_f32: vibegemm 1 ms, cuBLAS 0.5 ms -> ratio 0.5.
        self.assertRegex(lines[0], r"\| 0\.5 \| 0\.5\\?\*? \|")
        # max-autotune: a column on bf16 rows (0.4x vibegemm's time), none on f32.
        self.assertIn("autotune/vibegemm", table)
        bf16 = [ln for ln in lines if "| bf16 |" in ln]
        f32 = [ln for ln in lines if "| f32 |" in ln]
        self.assertTrue(any(ln.rstrip().endswith("| 0.4 |") for ln in bf16), bf16)
        self.assertTrue(all(ln.rstrip().endswith("| – |") for ln in f32), f32)
        self.assertIn("max-autotune", readme)

    def test_placeholder_without_reproduce(self):
        text = report.readme_md(synthetic_results(problems.suite()[:2]), "x", None, "builtin")
        self.assertIn("REPRODUCE-GPU: " + report.PLACEHOLDER, text)

    def test_merge_parts(self):
        suite = problems.suite()
        a = synthetic_results(suite[:6])
        a["skipped"] = [p.name for p in suite[6:8]]
        b = synthetic_results(suite[6:8])
        b["problems"][0]["vibegemm"]["result"]["time_ms"] = 99.0
        m = report.merge([a, b])
        self.assertEqual([r["problem"]["name"] for r in m["problems"]],
                         [p.name for p in suite[:8]])
        self.assertEqual(m["skipped"], [])
        self.assertEqual(m["problems"][6]["vibegemm"]["result"]["time_ms"], 99.0)
        self.assertEqual(len(m["parts"]), 2)

    def test_roofline(self):
        p = bench.problem_record(problems.suite()[0])  # f32 4096^3
        ms, bound = report.roofline_ms(p)
        self.assertAlmostEqual(ms, 2 * 4096 ** 3 / 67e12 * 1e3, places=6)
        self.assertEqual(bound, "compute")
        # A memory-bound problem's floor follows the GPU the run used.
        decode = next(bench.problem_record(q) for q in problems.suite()
                      if q.name == "a_decode_bf16")
        h200, _ = report.roofline_ms(decode, "H200")
        h100, bound = report.roofline_ms(decode, "H100")
        self.assertEqual(bound, "memory")
        self.assertAlmostEqual(h100 / h200, 4.0 / 3.0, places=6)
        self.assertEqual(report.device_of(
            {"environment": {"device": {"name": "NVIDIA H100 80GB HBM3"}}}), "H100")
        self.assertEqual(report.device_of({}), "H200")

    def test_png_decodes(self):
        cv = png.Canvas(7, 3)
        cv.rect(1, 1, 3, 2, (255, 0, 0))
        data = cv.png()
        idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
        raw = zlib.decompress(idat)
        self.assertEqual(len(raw), 3 * (1 + 7 * 3))
        self.assertEqual(raw[1 + 7 * 3 + 1 + 3:1 + 7 * 3 + 1 + 6], b"\xff\x00\x00")


if __name__ == "__main__":
    unittest.main()
