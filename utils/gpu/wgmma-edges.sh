#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin).
# Ragged wgmma tiles: M and N not multiples of the tile, K not of 64 (the
# last K-tile half out of bounds), with one and with two consumers, in all
# four operand layouts, batched; plus a GEMM + bias + ReLU chain on the
# staged epilogue. Verified on fresh inputs,
# then under compute-sanitizer memcheck.
# With SET=splitk, huge-K shapes instead (wgmma split-K): ragged M and N in
# the tile, A stored [K, M], B stored [N, K], a bias + ReLU on the combine.
# With SET=decode, decode shapes on the 64x128 wgmma tile (M of at most 16
# under a 64-row tile): M = 1, 7 and 16, ragged N, K not a multiple of 64,
# a bias + ReLU epilogue.
# Usage: [SET=splitk|decode] utils/gpu/wgmma-edges.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest" /tmp/wgedge
source utils/gpu/env.sh
# BATCHxMxNxK:LAYOUT[:EPILOGUE]; layout t = A stored [K, M] / B stored [N, K].
cases=(1x2000x1992x1000:nn 1x4000x3960x1000:nn 1x4000x3950x1000:nt
       1x2000x1992x1000:tn 1x3960x4000x1000:tt 1x2048x4096x1024:nt:bias_relu
       16x1000x1000x520:nn 4x1000x600x256:nn)
[ "${SET:-}" = splitk ] &&
  cases=(1x256x256x262144:nn 1x208x144x65536:nn 1x128x128x65536:nt
         1x128x192x65536:tn 1x256x256x131072:nt:bias_relu)
[ "${SET:-}" = decode ] &&
  cases=(1x16x11008x4096:nt 1x1x11008x4096:nt 1x7x9000x2048:nt
         1x12x16896x1032:nt 1x16x11008x4096:nt:bias_relu)
python3 python/bench/edge_cases.py /tmp/wgedge bf16 w "${cases[@]}" || exit 1
bash utils/gpu/verify-edges.sh /tmp/wgedge "$dest/edges.txt"
