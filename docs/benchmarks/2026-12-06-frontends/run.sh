#!/usr/bin/env bash
# Runs on the GPU machine (repo root): verifies and times the whole-function
# plans of the scaled GPT-2 MLP and BERT FFN frontend files beside eager
# PyTorch. Needs .bench/ (artifacts compiled here, see README.md),
# .dist/run-libs.tar.xz (or libraries already unpacked to /tmp/vg/lib by
# utils/gpu/env.sh) and build/bin/vibegemm-run carried.
# ART=DIR times the plans compiled under DIR instead of .bench (e.g. ones
# compiled on the GPU machine with measure=on); SKIP_TORCH=1 skips PyTorch.
set -uo pipefail
out=${1:?output directory}
art=${ART:-.bench}
mkdir -p "$out" /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/run-libs.tar.xz
run() { LD_LIBRARY_PATH=/tmp/vg/lib build/bin/vibegemm-run "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > "$out/device.txt"
for m in gpt2-mlp bert-ffn; do
  fn=$(python3 -c "import json;print(json.load(open('$art/$m/report.json'))['dispatches'][0]['name'].rsplit('_d',1)[0])")
  run --json --reference=kernel --seed=7 --sustain-ms=300 "$art/$m/$fn.plan.json" \
    > "$out/$m.vibegemm.json" 2> "$out/$m.vibegemm.err"
  echo "$m rc=$?" >> "$out/summary.txt"
done
[ -n "${SKIP_TORCH:-}" ] ||
  python3 docs/benchmarks/2026-12-06-frontends/torch_reference.py > "$out/torch.json" 2> "$out/torch.err"
cat "$out/summary.txt" "$out"/torch.json 2>/dev/null
for m in gpt2-mlp bert-ffn; do head -c 1500 "$out/$m.vibegemm.json"; echo; done
