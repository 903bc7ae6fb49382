#!/usr/bin/env bash
# Not yet run (no device time was left): stall reasons and shared-memory bank
# conflicts of the 128x128 FFMA kernel beside cuBLAS's f32 4096^3 kernel, the
# next step on the f32 gap. Needs .bench/prof32 (bench.py compile --out .bench/prof32 --only of
# l1_square_f32), build/bin/vibegemm-run and .dist/run-libs.tar.xz carried.
set -uo pipefail
out=${1:?}; w=/tmp/res7; mkdir -p $w /tmp/vg
[ -d /tmp/vg/lib ] || tar -C /tmp/vg -xJf .dist/run-libs.tar.xz
source utils/gpu/env.sh > /dev/null
m=gpu__time_duration.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_short_scoreboard,smsp__average_warp_latency_issue_stalled_mio_throttle,smsp__average_warp_latency_issue_stalled_math_pipe_throttle,smsp__average_warp_latency_issue_stalled_not_selected,smsp__average_warp_latency_issue_stalled_wait,smsp__average_warp_latency_issue_stalled_dispatch_stall,smsp__inst_executed.sum,smsp__warps_active.avg.pct_of_peak_sustained_active
sec="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats"
timeout 120 ncu --clock-control none $sec --metrics $m --kernel-name regex:'_kernel_[0-9]+$' build/bin/vibegemm-run --no-isolate --reference=none --verify-only .bench/prof32/l1_square_f32/artifacts/l1_square_f32_d0.plan.json > $w/vibegemm_f32.ncu.txt 2>&1
echo "vg rc=$?"
timeout 120 ncu --clock-control none $sec --metrics $m --kernel-name regex:'gemm|sgemm|xmma|cutlass' --launch-skip 2 --launch-count 1 python3 docs/benchmarks/2026-12-06-ncu-vs-cublas/torch_kernels.py square_f32 > $w/cublas_f32.ncu.txt 2>&1
echo "cublas rc=$?"
grep -E "^  [a-zA-Z_].*\(|Duration|stalled|inst_executed|bank_conflicts|shared_ld|Registers Per|Block Size|Grid Size|Achieved Occupancy|Executed Ipc A" $w/*.ncu.txt | sed 's/  */ /g'
tar -C $w -czf $out/res7.tgz .
