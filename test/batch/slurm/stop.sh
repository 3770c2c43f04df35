#!/usr/bin/env bash
# Stops the Slurm daemons start.sh started under DIR (by their pid files) and waits for them to end.
set -uo pipefail
dir=$(realpath "$1")
for name in slurmd slurmctld munged; do
  pidfile="$dir/$name.pid"
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
exit 0
