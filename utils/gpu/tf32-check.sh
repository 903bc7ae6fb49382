#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): the
# f32 GEMMs with f32-precision=tf32 and 3xtf32 against FFMA (ieee).
# 1. Ragged, transposed, misaligned, batched and epilogue f32 shapes per
#    precision: verified on fresh inputs, then under memcheck.
# 2. The f32 level-1 and level-2 problems compiled per precision, each plan
#    verified and timed by vibegemm-run beside cuBLAS (TF32 plans against
#    cuBLAS in TF32, the others against cuBLAS in f32), one JSON line each.
# 3. The TF32 plan of l1_square with its "f32_precision" record removed:
#    f32's tolerance must refuse it (the check can fail).
# STEPS picks some of "edges suite negative" (default all three), in
# that order; EDGE_PRECISIONS (default "tf32 3xtf32"; "ieee" is the FFMA
# path), SUITE_PRECISIONS and SUITE_ONLY narrow the first two.
# Usage: [STEPS=...] utils/gpu/tf32-check.sh OUTDIR
set -uo pipefail
steps=${STEPS:-edges suite negative}
dest=${1:?output directory}
mkdir -p "$dest"
source utils/gpu/env.sh
py=python3
[ -x /opt/torch/.venv/bin/python3 ] && py=/opt/torch/.venv/bin/python3

for prec in ${EDGE_PRECISIONS:-tf32 3xtf32}; do
  [[ $steps == *edges* ]] || break
  rm -rf /tmp/tfedge-$prec && mkdir -p /tmp/tfedge-$prec
  # BATCHxMxNxK:LAYOUT[:EPILOGUE]; layout t = A stored [K, M] / B stored
  # [N, K]. The 1001s give rows that are not 16-byte aligned (the FFMA path
  # copies such an operand into a padded buffer where it runs along M or N).
  # The last four are K-major (nt) with enough 128x256 tiles for TF32 to
  # take the wgmma kernel: ragged M and N, short K, K not a multiple of 32.
  $py python/bench/edge_cases.py /tmp/tfedge-$prec f32 f \
    1x1000x1992x1000:nn 1x2000x1000x1000:tn 1x1000x1000x1000:nt \
    1x1000x1000x1000:tt 1x1000x1000x1001:nn 4x1000x600x256:nn \
    1x1024x1024x1024:nt:bias_relu 1x1000x1001x1003:nn 1x1001x1000x1000:tn \
    4x512x1001x1024:nn 1x1024x1001x1024:nn:bias_relu \
    1x2048x4096x1024:nt 1x4096x2048x512:nt 1x2000x4000x1000:nt:bias_relu \
    1x2048x4096x1032:nt:bias_relu || exit 1
  EDGE_OPTIONS="f32-precision=$prec" bash utils/gpu/verify-edges.sh /tmp/tfedge-$prec "$dest/edges-$prec.txt"
  for d in /tmp/tfedge-$prec/*/; do
    plan=$(ls "$d"*_d0.plan.json | head -1)
    printf '%s %s ' "$prec" "$(basename "$d")"
    build/bin/vibegemm-run --verify-only --json "$plan" | $py -c '
import json, sys; r = json.load(sys.stdin)
v = [e for e in r.get("outputs", []) if "max_rel_err" in e]
print(r.get("status"), r.get("f32_precision"), " ".join("max_rel %.2e rel_l2 %.2e tol %.0e" % (e["max_rel_err"], e.get("rel_l2", 0), e["tolerance"]) for e in v[:1]))'
  done | tee -a "$dest/accuracy.txt"
done

for prec in ${SUITE_PRECISIONS:-ieee tf32 3xtf32}; do
  [[ $steps == *suite* ]] || break
  $py python/bench/bench.py compile --out /tmp/tfbench/$prec --dtypes f32 \
    --only "${SUITE_ONLY:-l1_(square|standard|trans_a|trans_b|trans_ab|batched|large_k|small_k|irregular)|l2_}" \
    --vibegemm-opt build/bin/vibegemm-opt --f32-precision $prec --jobs 8 >/dev/null 2>&1
  for d in /tmp/tfbench/$prec/*/; do
    plan=$(ls "$d"artifacts/*_d0.plan.json 2>/dev/null | grep -v reference | head -1)
    [ -n "$plan" ] || { echo "{\"problem\": \"$(basename $d)\", \"precision\": \"$prec\", \"status\": \"no plan\"}"; continue; }
    timeout 300 build/bin/vibegemm-run --json --compare=cublas "$plan" | $py -c '
import json, sys; r = json.load(sys.stdin)
c = r.get("cublas", {})
print(json.dumps({"problem": sys.argv[1], "precision": sys.argv[2], "status": r.get("status"),
                  "ms": r.get("time_ms"), "cublas_ms": c.get("time_ms"), "cublas_math": c.get("math"),
                  "ratio": (c["time_ms"] / r["time_ms"]) if c.get("time_ms") and r.get("time_ms") else None,
                  "verify": [{k: e.get(k) for k in ("max_rel_err", "rel_l2", "tolerance")} for e in r.get("outputs", [])][:1]}))' "$(basename $d)" "$prec"
  done
done | tee -a "$dest/suite.jsonl"

[[ $steps == *negative* ]] || exit 0
# One TF32 plan per kernel: mma.sync (l1_square, NN) and wgmma (l2_bias_relu).
: > "$dest/negative.txt"
for problem in l1_square l2_bias_relu; do
  neg=/tmp/tfbench/tf32/${problem}_f32/artifacts
  [ -d "$neg" ] || $py python/bench/bench.py compile --out /tmp/tfbench/tf32 --dtypes f32 \
    --only "$problem" --vibegemm-opt build/bin/vibegemm-opt --f32-precision tf32 >/dev/null 2>&1
  $py - "$neg" "$problem" <<'PY'
import json, sys
p = f"{sys.argv[1]}/{sys.argv[2]}_f32_d0.plan.json"
plan = json.load(open(p)); plan.pop("f32_precision")
json.dump(plan, open(f"{sys.argv[1]}/stripped.plan.json", "w"))
PY
  echo "$problem: TF32 plan without its f32_precision record (must fail f32's tolerance):" | tee -a "$dest/negative.txt"
  build/bin/vibegemm-run --verify-only "$neg/stripped.plan.json" > /tmp/neg.txt 2>&1
  echo "exit $?" >> /tmp/neg.txt
  tail -3 /tmp/neg.txt | tee -a "$dest/negative.txt"
done
