#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for test/Slurm: starts a private
# munged, slurmctld and slurmd under DIR (config, keys, state, logs, free
# ports), runs COMMAND with SLURM_CONF pointing at it, and stops the daemons
# whatever happens. Needs root (SlurmUser=root), slurm-wlm and munge.
#   local-cluster.sh DIR -- COMMAND...
set -euo pipefail
dir=$(realpath -m "$1")
shift
[ "${1:-}" = -- ] && shift
rm -rf "$dir"
mkdir -p "$dir"/{munge,state,spool,log,run}
chmod 700 "$dir/munge"

# "name pid" of each daemon started, read from its pid file once it is up
# (the daemons remove their pid files when they stop).
daemons=()
pidfiles=("munged $dir/munge/munged.pid" "slurmctld $dir/run/slurmctld.pid"
          "slurmd $dir/run/slurmd.pid")
running() {
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  # A zombie that init has not reaped yet has stopped.
  [[ $stat != Z* ]]
}
stop() {
  local status=$? i entry pid stopped=() left=()
  # Those still starting are known by their pid files only.
  for entry in "${pidfiles[@]}"; do
    [ -s "${entry#* }" ] && daemons+=("${entry%% *} $(cat "${entry#* }")")
  done
  # Only the daemons this script started, by pid, the last started first
  # (munged last: the others talk to it until they stop).
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    entry=${daemons[i]}
    pid=${entry#* }
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      running "$pid" || break
      sleep 0.1
    done
    if running "$pid"; then
      left+=("${entry% *}")
    else
      stopped+=("${entry% *}")
    fi
  done
  if ((${#left[@]})); then
    echo "local-cluster.sh: still running: ${left[*]}" >&2
    exit 1
  fi
  echo "local-cluster.sh: stopped $(printf '%s\n' "${stopped[@]}" | sort -u | xargs)" >&2
  exit "$status"
}
trap stop EXIT

# A fresh key: this cluster trusts nobody else.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" \
  --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"

read -r ctldPort slurmdPort < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

export SLURM_CONF="$dir/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=vibegemm-test
SlurmctldHost=localhost
SlurmctldPort=$ctldPort
SlurmdPort=$slurmdPort
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -c
slurmd -N localhost
# The node is up once the controller has heard from slurmd.
for _ in $(seq 300); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  case "$state" in idle*|mixed*|allocated*) break ;; esac
  sleep 0.1
done
case "$state" in
  idle*|mixed*|allocated*) ;;
  *) echo "local-cluster.sh: the node did not come up (state '$state')" >&2
     tail -n 20 "$dir"/log/*.log "$dir/munge/munged.log" >&2 || true
     exit 1 ;;
esac

for entry in "${pidfiles[@]}"; do
  daemons+=("${entry%% *} $(cat "${entry#* }")")
done
pidfiles=()

"$@"
