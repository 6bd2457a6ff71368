#!/usr/bin/env bash
# Runs a command and prints its wall time, the whole machine's busy CPU seconds meanwhile (every
# process: Vitest, its workers, svc children, Chromium, PostgreSQL) and the PostgreSQL server's own
# CPU seconds (its postmaster and every backend it reaped). The command's output goes to
# ${MACHINE_CPU_LOG:-/tmp/machine-cpu.log}. Example, from the repository's root:
#   scripts/suite-cpu/machine-cpu.sh npx vitest run postgres.test
set -euo pipefail
log=${MACHINE_CPU_LOG:-/tmp/machine-cpu.log}
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
postmaster=$(pgrep -o -x postgres || true)
pgcpu() { if [ -n "$postmaster" ]; then awk '{print $14+$15+$16+$17}' "/proc/$postmaster/stat"; else echo 0; fi; }
hz=$(getconf CLK_TCK)
b0=$(busy); p0=$(pgcpu); t0=$(date +%s.%N)
status=0
"$@" > "$log" 2>&1 || status=$?
b1=$(busy); p1=$(pgcpu); t1=$(date +%s.%N)
awk -v t0="$t0" -v t1="$t1" -v b="$((b1 - b0))" -v p="$((p1 - p0))" -v hz="$hz" -v s="$status" \
  'BEGIN { printf "{\"wallSeconds\":%.1f,\"machineCpuSeconds\":%.1f,\"postgresCpuSeconds\":%.1f,\"exitCode\":%d}\n", t1 - t0, b / hz, p / hz, s }'
exit "$status"
