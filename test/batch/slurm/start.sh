#!/usr/bin/env bash
# Starts a private one-node Slurm (munged, slurmctld, slurmd) under DIR and waits until the node
# takes jobs. Prints the SLURM_CONF path on stdout. Stop it with stop.sh DIR.
# Usage: start.sh DIR [CPUS]
set -euo pipefail
dir=$(realpath "$1")
cpus=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)
for bin in munged mungekey slurmctld slurmd sinfo; do
  command -v "$bin" >/dev/null 2>&1 || { echo "slurm is not installed: $bin not found" >&2; exit 3; }
done
mkdir -p "$dir/state" "$dir/spool"
chmod 700 "$dir"
host=$(hostname -s)
# Ports free now, chosen from this run's own range so parallel runs do not meet.
port() { python3 - <<'PY' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])
PY
}
ctld_port=$(port)
slurmd_port=$(port)
sed -e "s|@DIR@|$dir|g" -e "s|@HOST@|$host|g" -e "s|@USER@|$(id -un)|g" -e "s|@CPUS@|$cpus|g" \
  -e "s|@CTLD_PORT@|$ctld_port|g" -e "s|@SLURMD_PORT@|$slurmd_port|g" "$here/slurm.conf.in" >"$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"

mungekey --create --keyfile="$dir/munge.key" --force >/dev/null 2>&1 || dd if=/dev/urandom of="$dir/munge.key" bs=1 count=1024 2>/dev/null
chmod 600 "$dir/munge.key"
munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 1200); do # up to 2 min on a crowded machine
  state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1 || true)
  case "$state" in idle | mix | alloc) echo "$SLURM_CONF"; exit 0 ;; esac
  sleep 0.1
done
echo "slurm did not become ready (node state '${state:-none}'); see $dir/slurmctld.log and $dir/slurmd.log" >&2
"$here/stop.sh" "$dir" || true
exit 4
