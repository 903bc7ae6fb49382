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

pids=()
stop() {
  # Only the daemons this script started, by their pid files.
  for f in "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" \
           "$dir/munge/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  for f in "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" \
           "$dir/munge/munged.pid"; do
    for _ in $(seq 50); do
      [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || break
      sleep 0.1
    done
  done
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

"$@"
