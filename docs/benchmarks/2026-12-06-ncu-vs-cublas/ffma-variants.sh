#!/usr/bin/env bash
set -uo pipefail
out=${1:?}; w=/tmp/res5; mkdir -p $w /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/run-libs.tar.xz
source utils/gpu/env.sh > /dev/null
for c in .bench/var/art-*/candidates/*/; do
  d=$(basename $c); plan=$(ls $c/*.plan.json | grep -v reference)
  timeout 60 build/bin/vibegemm-run --json --seed=7 --sustain-ms=200 $plan > $w/$d.json 2> $w/$d.err
  python3 -c "import json,sys; r=json.load(open('$w/$d.json')); print('$d', r['status'], r.get('time_ms'))" 2>/dev/null || echo "$d failed"
done | tee $w/summary.txt
python3 - <<'PY' | tee -a $w/summary.txt
import torch, statistics
torch.backends.cuda.matmul.allow_tf32 = False
flush = torch.empty(512*1024*1024, dtype=torch.uint8, device="cuda")
def t(m, n, k):
    a = torch.randn(m, k, device="cuda"); b = torch.randn(k, n, device="cuda")
    for _ in range(10): a @ b
    ts = []
    for _ in range(50):
        flush.zero_(); s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    return statistics.median(ts)
for shape in [(1024, 3072, 768), (1024, 768, 3072), (512, 3072, 768), (512, 768, 3072)]:
    print("cublas", shape, t(*shape))
PY
tar -C $w -czf $out/res5.tgz .
