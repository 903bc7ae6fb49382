#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): two
# vibegemm-opt builds, A and B (say, the commits before and after a
# change), compile the same problems, and the benchmark harness times each
# plan alternately (A B A B ...) beside PyTorch's cuBLAS and eager, so a
# change's effect is measured in one run on one card. Prints one line per
# problem, build and round.
# Usage: [A=build/bin/vibegemm-opt-a] [B=build/bin/vibegemm-opt] [ONLY=regex]
#        [ROUNDS=2] [DTYPES=bf16] utils/gpu/ab-compare.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source utils/gpu/env.sh
only=${ONLY:-l2_scale_residual|l2_bias_relu}
for round in $(seq "${ROUNDS:-2}"); do
  for variant in a b; do
    bin=${B:-build/bin/vibegemm-opt}
    [ "$variant" = a ] && bin=${A:-build/bin/vibegemm-opt-a}
    work=/tmp/ab-$variant-$round
    python3 python/bench/bench.py compile --out "$work" --only "$only" \
      --dtypes "${DTYPES:-bf16}" --vibegemm-opt "$bin" > "$dest/compile-$variant-$round.log" 2>&1
    python3 python/bench/bench.py run --out "$work" --only "$only" --dtypes "${DTYPES:-bf16}" \
      --vibegemm-run build/bin/vibegemm-run --no-compile-torch --run-timeout 120 \
      > "$dest/run-$variant-$round.log" 2>&1
    cp "$work/results.json" "$dest/results-$variant-$round.json"
    python3 - "$work/results.json" "$variant" "$round" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["problems"]:
    v = (p.get("vibegemm") or {}).get("result") or {}
    ms = lambda key: (p.get(key) or {}).get("time_ms")
    print(f"{p['problem']['name']} {sys.argv[2]} round {sys.argv[3]}: "
          f"vibegemm {v.get('status')} {v.get('time_ms')} ms, "
          f"cuBLAS {ms('cublas')} ms, eager {ms('eager')} ms")
PY
  done
done | tee "$dest/ab.txt"
