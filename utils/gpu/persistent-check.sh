#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# built-in choice against its variants (for the 128x256 wgmma tile: the
# persistent kernel with TMA stores against one block per tile and against
# itself in 2-block clusters multicasting B, or, where
# that is not the choice yet, the persistent kernel with and without TMA
# stores against it; for split-K's 64x128 tile: 128x128 split twice as
# finely), through the product's own race.
# `vibegemm-opt --llm-schedule=measure=on` times the built-in
# schedule and its `builtin-variant`s beside cuBLAS,
# each verified in an isolated child; this prints every candidate's status
# and time per problem, ROUNDS times over (a variant that faults in any
# round shows up), then does the same on the wgmma edge cases (ragged,
# layouts, batched, bias + ReLU) and runs every candidate's plan under
# compute-sanitizer memcheck.
# A device call lasts at most 600 s: races stop starting once TIME_BUDGET
# seconds (default 450) have passed, saying what they skipped, and the edge
# cases run only with EDGES=1 (a second call).
# PROBLEMS=a,b (suite names without the dtype) races those instead.
# Usage: [ROUNDS=2] [TIME_BUDGET=450] [PROBLEMS=l1_matvec,...]
#        [EDGES=1 [EDGE_CASES="1x2000x1992x1000:nn ..."]]
#        utils/gpu/persistent-check.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest" /tmp/pcheck
source utils/gpu/env.sh
summary() { # report.json: one line per dispatch, and a record in candidates.jsonl
  python3 - "$1" "$dest/candidates.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for d in r["dispatches"]:
    parts, record = [], []
    for c in d["candidates"]:
        m = c.get("measurement") or {}
        record.append({"name": c["source"] + ("/" + c["variant"] if c.get("variant") else ""),
                       "status": c["status"], "time_ms": c.get("time_ms"),
                       "cublas_ms": (m.get("cublas") or {}).get("time_ms"),
                       "max_active_clusters": [l.get("max_active_clusters")
                                               for l in m.get("launches") or []]})
        m = c.get("measurement") or {}
        cublas = (m.get("cublas") or {}).get("time_ms")
        t = c.get("time_ms")
        name = c["source"] + (f" ({c['variant']})" if c.get("variant") else "")
        parts.append(f"{name} {c['status']} " + (f"{t:.4f} ms" if t else "-") +
                     (f" (cuBLAS {cublas:.4f})" if cublas else "") +
                     ("" if c["status"] == "ok" else f" [{c.get('diagnostic', '')[:120]}]"))
    print(f"{d['name']}: " + "; ".join(parts) + f" -> {d['winner_source']}")
    with open(sys.argv[2], "a") as f:
        f.write(json.dumps({"dispatch": d["name"], "candidates": record}) + "\n")
PY
}
table() { # candidates.jsonl -> per dispatch, each candidate's median over rounds
  python3 - "$dest/candidates.jsonl" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    for c in r["candidates"]:
        runs.setdefault(r["dispatch"], {}).setdefault(c["name"], []).append(c)
print("dispatch | candidate | statuses | median ms | vs builtin | cuBLAS/it | max active clusters")
for dispatch, by_name in runs.items():
    base = [c["time_ms"] for c in by_name.get("builtin", []) if c["time_ms"]]
    # Only the built-in candidate's run times cuBLAS: every candidate of
    # the dispatch is put beside that.
    cublas = [c["cublas_ms"] for cs in by_name.values() for c in cs if c["cublas_ms"]]
    for name, cs in by_name.items():
        times = [c["time_ms"] for c in cs if c["time_ms"]]
        t = statistics.median(times) if times else None
        print(" | ".join([dispatch, name, ",".join(sorted({c["status"] for c in cs})),
                          f"{t:.4f}" if t else "-",
                          f"{statistics.median(base) / t:.3f}" if t and base else "-",
                          f"{statistics.median(cublas) / t:.3f}" if t and cublas else "-",
                          str(cs[-1]["max_active_clusters"])]))
PY
}
deadline=$((SECONDS + ${TIME_BUDGET:-450}))
race() { # name input.mlir
  if ((SECONDS > deadline)); then echo "$1: skipped (time budget)"; return; fi
  rm -rf "/tmp/pcheck/$1"
  timeout 900 build/bin/vibegemm-opt "$2" \
    --llm-schedule="measure=on target=sm_90a artifacts-dir=/tmp/pcheck/$1 keep-candidates=${KEEP:-false}" \
    -o /dev/null 2> "/tmp/pcheck/$1.log" || { echo "$1: compile failed: $(tail -c 300 "/tmp/pcheck/$1.log")"; return; }
  summary "/tmp/pcheck/$1/report.json"
}
python3 - /tmp/pcheck/inputs <<'PY'
import os, sys
sys.path.insert(0, "python/bench")
import problems
os.makedirs(sys.argv[1], exist_ok=True)
# Most telling first: the time budget may stop a round before its end.
want = ["l1_square", "a_cube_8192", "l2_bias_relu", "a_tiny_k", "l1_small_k",
        "l2_scale_residual", "l1_standard", "a_huge_k", "l1_batched", "l1_irregular",
        "l1_trans_b", "l1_trans_a", "l2_gelu_softmax", "l2_scale_hardtanh_gelu"]
if os.environ.get("PROBLEMS"):
    want = os.environ["PROBLEMS"].split(",")
for p in problems.suite():
    if p.base in want and p.dtype == "bf16":
        name = f"{want.index(p.base):02d}-{p.name}"
        open(os.path.join(sys.argv[1], name + ".mlir"), "w").write(problems.mlir(p))
PY
if [ "${EDGES:-0}" != 1 ]; then
for round in $(seq "${ROUNDS:-2}"); do
  echo "== round $round"
  for src in /tmp/pcheck/inputs/*.mlir; do race "$(basename "$src" .mlir)" "$src"; done
done | tee "$dest/race.txt"
table | tee "$dest/summary.txt"
exit 0
fi
cases=(1x2000x1992x1000:nn 1x4000x3960x1000:nn 1x4000x3950x1000:nt
       1x2000x1992x1000:tn 1x3960x4000x1000:tt 1x2048x4096x1024:nt:bias_relu
       16x1000x1000x520:nn 4x1000x600x256:nn 1x8192x8200x200:nn
       1x4000x4000x1000:tn 4x2000x2040x256:nt)
# EDGE_CASES="SPEC ..." (edge_cases.py's specs) checks those instead.
[ -n "${EDGE_CASES:-}" ] && read -r -a cases <<< "$EDGE_CASES"
python3 python/bench/edge_cases.py /tmp/pcheck/edges bf16 p "${cases[@]}" || exit 1
# Every candidate's files are kept (keep-candidates), so each variant runs
# under memcheck, not only the winner.
for src in /tmp/pcheck/edges/*.mlir; do
  name=$(basename "$src" .mlir)
  KEEP=true race "$name" "$src"
  for plan in /tmp/pcheck/"$name"/candidates/*/*_d0.plan.json; do
    [ -f "$plan" ] || continue
    if ((SECONDS > deadline)); then echo "  memcheck skipped (time budget)"; break; fi
    printf '  %s under memcheck: %s\n' "$(basename "$(dirname "$plan")")" \
      "$(compute-sanitizer --tool memcheck --print-limit 5 build/bin/vibegemm-run \
        --no-isolate --verify-only "$plan" 2>&1 | grep -E 'ERROR SUMMARY' | tr '\n' ' ')"
  done
done | tee "$dest/edges.txt"
