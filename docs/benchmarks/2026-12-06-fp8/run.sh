#!/usr/bin/env bash
# Runs on the GPU machine (repo root): verifies and times the FP8 plans
# compiled here (see README.md) with vibegemm-run, cuBLASLt's FP8 GEMM timed
# beside each (--compare=cublas), then torch._scaled_mm on the same shapes.
# Needs .bench/fp8 (the artifacts), .dist/run-libs.tar.xz (or libraries
# already unpacked to /tmp/vg/lib) and build/bin/vibegemm-run carried.
set -uo pipefail
out=${1:?output directory}
art=${ART:-.bench/fp8}
here=$(dirname "$0")
mkdir -p "$out" /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/run-libs.tar.xz
run() { LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-run "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > "$out/device.txt"
for dir in "$art"/*/; do
  name=$(basename "$dir")
  run --json --compare=cublas --seed=7 --sustain-ms=300 "$dir/${name}_d0.plan.json" \
    > "$out/$name.json" 2> "$out/$name.err"
  echo "$name rc=$?" >> "$out/summary.txt"
done
# The plain GEMM once more against the reference kernels, whose FP8
# widening the cuBLASLt check above then stands behind.
run --json --reference=kernel --verify-only --seed=11 "$art/plain_e4m3/plain_e4m3_d0.plan.json" \
  > "$out/plain_e4m3.kernel-ref.json" 2> "$out/plain_e4m3.kernel-ref.err"
echo "plain_e4m3 kernel-ref rc=$?" >> "$out/summary.txt"
python3 "$here/torch_scaled_mm.py" > "$out/torch.json" 2> "$out/torch.err"
cat "$out/summary.txt"
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    if f.endswith("torch.json"):
        continue
    try:
        r = json.load(open(f))
    except Exception as e:
        print(os.path.basename(f), "unreadable", e); continue
    c = r.get("cublas", {})
    errs = [(o["name"], o.get("max_rel_err"), o.get("rel_l2"), o.get("tolerance"))
            for o in r.get("outputs", [])]
    print(os.path.basename(f), r.get("status"), r.get("reference"),
          r.get("time_ms"), "cublasLt", c.get("time_ms", c.get("skipped")),
          errs, r.get("diagnostic", "")[:300])
PY
head -c 3000 "$out/torch.json"; tail -5 "$out/torch.err"
