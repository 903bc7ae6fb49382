#!/usr/bin/env bash
# Runs on the GPU machine (repo root, carrying .dist and build/bin): why the
# dense bf16 wgmma kernel trails cuBLAS at the sustained clock. Three views
# of l1_square_bf16 (4096^3) beside torch.matmul on the same shape:
#  1. Nsight Compute at its locked base clock: cycles, tensor-pipe activity,
#     L2 and DRAM bytes of both kernels (clock-independent work and stalls);
#  2. the SM clock and power nvidia-smi reports during 4 s of sustained
#     (flush, run) pairs of each (how hard the power limit bites each);
#  3. vibegemm-run's in-process comparison with cuBLAS.
# Usage: docs/benchmarks/h200-2026-12-04-dense-gap/dense-diagnose.sh OUTDIR
set -uo pipefail
dest=${1:?output directory}
mkdir -p "$dest"
source utils/gpu/env.sh
work=/tmp/diagnose
python3 python/bench/bench.py compile --out "$work" --jobs 4 --dtypes bf16 \
  --only '^l1_square' --vibegemm-opt build/bin/vibegemm-opt > "$dest/compile.log" 2>&1
plan=$(ls "$work"/l1_square_bf16/artifacts/*_d0.plan.json)
ncu --query-metrics 2>/dev/null | grep -iE 'gmma|tensor' > "$dest/tensor-metrics.txt"
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
cat > /tmp/torch-4096.py <<'PY'
import torch
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
for _ in range(4):
    torch.matmul(a, b)
torch.cuda.synchronize()
PY
{
  echo "== vibegemm (ncu, base clock)"
  timeout 300 ncu --metrics "$metrics" $sections --kernel-name regex:'_kernel_[0-9]+$' \
    build/bin/vibegemm-run --no-isolate --reference=none --verify-only "$plan" 2>&1 |
    grep -vE '^==PROF==|^ *-+ *$'
  echo "== cuBLAS via torch.matmul (ncu, base clock, 3rd launch)"
  timeout 300 ncu --metrics "$metrics" $sections --launch-skip 2 --launch-count 1 \
    python3 /tmp/torch-4096.py 2>&1 | grep -vE '^==PROF==|^ *-+ *$'
} > "$dest/ncu.txt" 2>&1

# Clock and power under sustained load, each side alone.
log="$dest/smi.csv"
( while true; do echo "$(date +%s.%N), $(nvidia-smi --query-gpu=clocks.sm,power.draw \
    --format=csv,noheader,nounits)"; sleep 0.05; done ) > "$log" &
smi=$!
sleep 2
t0=$(date +%s.%N)
build/bin/vibegemm-run --no-isolate --json --sustain-ms 4000 "$plan" > "$dest/run-sustain4s.json"
t1=$(date +%s.%N)
build/bin/vibegemm-run --json --compare=cublas "$plan" > "$dest/run-compare.json"
sleep 3
python3 - "$dest" <<'PY' > "$dest/torch-window.txt"
import sys, time, torch
sys.path.insert(0, "python/bench")
import torch_side
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
flush = torch.zeros(torch_side.flush_bytes() // 4, dtype=torch.float32, device="cuda")
torch_side.SUSTAIN_S = 4.0
t0 = time.time()
timing = torch_side.time_fn(lambda: torch.matmul(a, b), 200, 5, flush)
t1 = time.time()
print(t0, t1, timing["median_ms"])
PY
sleep 0.5
kill $smi
python3 - "$log" "$t0" "$t1" "$dest/torch-window.txt" <<'PY' | tee "$dest/clocks.txt"
import statistics, sys
log, t0, t1, torch_window = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = []
for line in open(log):
    parts = [p.strip() for p in line.split(",")]
    try:
        rows.append((float(parts[0]), float(parts[1]), float(parts[2])))
    except (ValueError, IndexError):
        pass
def window(a, b, label):
    # the last 2 s of each window: past the boost, inside the sustained part
    sel = [r for r in rows if b - 2.5 <= r[0] <= b - 0.5]
    if not sel:
        print(label, "no samples"); return
    print(f"{label}: median SM clock {statistics.median(r[1] for r in sel):.0f} MHz, "
          f"power {statistics.median(r[2] for r in sel):.0f} W ({len(sel)} samples)")
window(t0, t1, "vibegemm-run (4 s sustain, then timed runs)")
tt0, tt1, ms = open(torch_window).read().split()
window(float(tt0), float(tt0) + 4.0, f"torch.matmul (4 s sustain; timed median {float(ms):.4f} ms)")
PY
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); c=r.get("cublas") or {}
print("vibegemm-run (default sustain):", r.get("status"), r.get("time_ms"), "ms; its cuBLAS", c.get("time_ms"), "ms")' \
  "$dest/run-compare.json" | tee -a "$dest/clocks.txt"
python3 docs/benchmarks/h200-2026-12-04-dense-gap/cublas-paths.py 2>&1 | tee "$dest/cublas-paths.txt"
