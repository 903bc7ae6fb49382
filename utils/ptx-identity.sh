#!/usr/bin/env bash
# Fingerprints everything the compiler writes for the shipped inputs, so that a
# behaviour-preserving change can be shown to leave the generated PTX, the
# schedules and the launch plans byte-identical.
#
#   utils/ptx-identity.sh BUILD_DIR OUT_FILE      # write a fingerprint
#   diff OLD_FILE OUT_FILE                        # empty diff: identical
#
# Inputs: examples/, test/e2e/, test/e2e/Inputs/, test/frontends/ (each under
# sm_90a and sm_80 with the built-in scheduler) and the benchmark suite's 32
# problems (python/bench, sm_90a). A refusal is fingerprinted by its message,
# so refusals must stay the same too.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
opt=$build/bin/vibegemm-opt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fingerprint_dir() { # DIR LABEL
  (cd "$1" && find . -type f \( -name '*.ptx' -o -name '*.schedule.mlir' \
      -o -name '*.plan.json' \) | LC_ALL=C sort | while read -r f; do
    echo "$2 $f $(sha256sum < "$f" | cut -c1-16)"
  done)
}

{
  for input in "$src"/examples/*.mlir "$src"/test/e2e/*.mlir \
               "$src"/test/e2e/Inputs/*.mlir "$src"/test/frontends/*.mlir; do
    name=${input#"$src"/}
    for target in sm_90a sm_80; do
      dir=$work/$(echo "$name-$target" | tr '/' '_')
      if "$opt" --llm-schedule="artifacts-dir=$dir target=$target measure=off" \
          "$input" -o "$dir.mlir" 2> "$dir.err"; then
        fingerprint_dir "$dir" "$name:$target"
      else
        # Drop the temporary and checkout paths from the message before
        # hashing it, so that worktrees compare.
        echo "$name:$target refused $(sed -e "s|$work||g" -e "s|$src||g" "$dir.err" | sha256sum | cut -c1-16)"
      fi
    done
  done
  python3 -B "$src/python/bench/bench.py" compile --out "$work/suite" --jobs 2 \
    --dtypes f32,bf16 --vibegemm-opt "$opt" > "$work/suite.log" 2>&1 || { cat "$work/suite.log"; exit 1; }
  for dir in "$work"/suite/*/artifacts; do
    fingerprint_dir "$dir" "suite:$(basename "$(dirname "$dir")")"
  done
} > "$out"
echo "$(wc -l < "$out") fingerprints in $out"
