#!/usr/bin/env bash
# A Slurm cluster on this one machine, for the fleet command's tests: munge, slurmctld and two slurmd
# (two Slurm nodes, <host>-n1 and <host>-n2, on this host at ports 17011 and 17012), so that a job of
# one task per node runs as it would on two machines. No accounting database: sacct cannot read jobs
# without slurmdbd, so the tests wait with squeue and scontrol. Run as root (CI does); idempotent.
# Usage: .ci/slurm.sh        (start, or leave running what already runs)
#        .ci/slurm.sh stop   (stop the daemons this script started)
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
if [ "${1:-}" = stop ]; then
  for p in /run/slurm-ci/*.pid; do [ -f "$p" ] && $SUDO kill "$(cat "$p")" 2>/dev/null || true; done
  exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

HOST=$(hostname -s); CPUS=$(nproc)
MEM=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 4 ))  # MiB per Slurm node: a quarter
CONF=/etc/slurm/slurm.conf
$SUDO mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm-ci
$SUDO tee "$CONF" >/dev/null <<EOF
# written by .ci/slurm.sh: a test cluster of two Slurm nodes on one host
ClusterName=rsg-ci
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurm-ci/slurmctld.pid
SlurmdPidFile=/run/slurm-ci/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.txt
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$HOST-n1 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=17011 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
NodeName=$HOST-n2 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=17012 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=ci Nodes=$HOST-n[1-2] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF

# munge: its key, its run folder owned by the munge user, the daemon as that user
if ! [ -s /etc/munge/munge.key ]; then
  $SUDO dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
$SUDO chown munge:munge /etc/munge /etc/munge/munge.key; $SUDO chmod 400 /etc/munge/munge.key
$SUDO mkdir -p /run/munge /var/log/munge /var/lib/munge
$SUDO chown munge:munge /run/munge /var/log/munge /var/lib/munge; $SUDO chmod 755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  $SUDO runuser -u munge -- /usr/sbin/munged
fi

alive() { [ -f "$1" ] && $SUDO kill -0 "$(cat "$1")" 2>/dev/null; }
alive /run/slurm-ci/slurmctld.pid || $SUDO slurmctld
for n in 1 2; do
  alive "/run/slurm-ci/slurmd-$HOST-n$n.pid" || $SUDO slurmd -N "$HOST-n$n"
done

# up when both nodes are idle (or already running jobs): at most 2 minutes
for i in $(seq 120); do
  states=$(sinfo -h -N -o '%t' 2>/dev/null || true)
  if [ "$(echo "$states" | grep -cE '^(idle|alloc|mix)$')" -ge 2 ] \
     && ! echo "$states" | grep -qvE '^(idle|alloc|mix)$'; then
    echo "slurm: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')after ${i} s"; exit 0
  fi
  # a node left down by an earlier run comes back
  [ "$i" = 10 ] && $SUDO scontrol update NodeName="$HOST-n[1-2]" State=RESUME 2>/dev/null || true
  sleep 1
done
echo "slurm did not come up in 2 minutes: $(sinfo -N 2>&1 | tr '\n' ' ')"; exit 1
