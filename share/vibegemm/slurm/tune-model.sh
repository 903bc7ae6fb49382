#!/usr/bin/env bash
# Tunes a model's GEMM dispatches over a Slurm job array and merges the
# results: N tasks each tune a shard of the dispatches (tune-array.sbatch),
# then vibegemm-db import merges their databases into DIR/merged.sqlite and
# exports DIR/tuned-spec.mlir. docs/tuning-at-scale.md explains it.
set -euo pipefail

usage() {
  cat >&2 <<USAGE
usage: tune-model.sh -n TASKS -d DIR [-s SBATCH_ARG]... MODEL.mlir [LLM_SCHEDULE_OPTIONS]

  -n TASKS       array tasks (shards); each tunes about 1/TASKS of the dispatches
  -d DIR         working directory on a file system every node sees: shard
                 databases, logs, artifacts, merged.sqlite, tuned-spec.mlir
  -s SBATCH_ARG  passed to sbatch (repeat it), e.g. -s --partition=gpu -s --gres=gpu:1
  LLM_SCHEDULE_OPTIONS  one string of llm-schedule options, e.g.
                 "target=sm_90a measure=on rounds=3"; shard, db and
                 artifacts-dir are set per task

The tools are found in \$VIBEGEMM_BIN, else beside this installed script
(PREFIX/bin), else on PATH. The LLM endpoint and key come from the
environment (VIBEGEMM_LLM_ENDPOINT, VIBEGEMM_LLM_API_KEY), which sbatch
passes to the tasks.
USAGE
  exit 2
}

tasks="" dir="" sbatchArgs=()
while getopts "n:d:s:h" flag; do
  case "$flag" in
    n) tasks=$OPTARG ;;
    d) dir=$OPTARG ;;
    s) sbatchArgs+=("$OPTARG") ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ -n "$tasks" ] && [ -n "$dir" ] || usage
[[ "$tasks" =~ ^[1-9][0-9]*$ ]] || { echo "tune-model.sh: -n wants a positive count, not '$tasks'" >&2; exit 2; }
model=$(realpath "$1")
options=${2:-}
here=$(dirname "$(realpath "$0")")

bin=${VIBEGEMM_BIN:-}
if [ -z "$bin" ]; then
  if [ -x "$here/../../../bin/vibegemm-opt" ]; then
    bin=$(realpath "$here/../../../bin")
  else
    bin=$(dirname "$(command -v vibegemm-opt)")
  fi
fi
export VIBEGEMM_OPT="$bin/vibegemm-opt" VIBEGEMM_SHARDS="$tasks"
db="$bin/vibegemm-db"

mkdir -p "$dir/logs"
dir=$(realpath "$dir")

# --wait: sbatch returns when every task has ended, with the highest exit
# status of any task.
status=0
sbatch --wait --array="0-$((tasks - 1))" --output="$dir/logs/task-%a.out" \
  "${sbatchArgs[@]}" "$here/tune-array.sbatch" "$dir" "$model" "$options" ||
  status=$?

# Merge what the tasks wrote even when one failed: nothing is lost, and a
# rerun of the failed tasks merges again without copying anything twice.
shards=()
for ((i = 0; i < tasks; i++)); do
  if [ -f "$dir/shard-$i.sqlite" ]; then
    shards+=("$dir/shard-$i.sqlite")
  else
    echo "tune-model.sh: task $i wrote no database (see $dir/logs/task-$i.out)" >&2
    status=1
  fi
done
if ((${#shards[@]})); then
  "$db" import "$dir/merged.sqlite" "${shards[@]}"
  "$db" export "$dir/merged.sqlite" -o "$dir/tuned-spec.mlir"
fi
if [ "$status" -ne 0 ]; then
  echo "tune-model.sh: the array failed (exit $status); see $dir/logs" >&2
fi
exit "$status"
