#!/usr/bin/env bash
# Runs `lineup-bench postgres-jobs` once and prints, beside its jobs a second, the processor time
# that its daemon processes and the server's backends spent on every 1,000 jobs (user + system,
# from /proc, sampled every 0.1 s until the benchmark ends). On a shared machine a run's jobs a
# second swings by a fifth; the time per job says where a change went. The server's figure
# includes the benchmark's own connection, which fills the table.
#
#   scripts/postgres-jobs-cpu.sh BENCH DAEMONS JOBS
#   scripts/postgres-jobs-cpu.sh .build-release/release/lineup-bench 1 60000
set -euo pipefail
if [ "$#" -ne 3 ]; then
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
bench=$1 daemons=$2 jobs=$3
output=$(mktemp)
trap 'rm -f "$output"' EXIT
declare -A daemonTicks serverTicks
"$bench" postgres-jobs --daemons "$daemons" --db-jobs "$jobs" --no-baseline --no-peer >"$output" 2>&1 &
benchmark=$!
# A process's ticks (fields 14 and 15 of /proc/PID/stat) are kept as last seen: it may be gone
# by the next sample.
sample() {
    local -n ticks=$1
    local pid value
    for pid in $(pgrep -f "$2" || true); do
        value=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || true)
        # An `if`, not `&&`: a process gone since pgrep leaves no value, and a failed `&&` as the
        # function's last command would end the script under `set -e`.
        if [ -n "$value" ]; then ticks[$pid]=$value; fi
    done
}
while kill -0 "$benchmark" 2>/dev/null; do
    sample daemonTicks postgres-jobs-daemon
    sample serverTicks "postgres: lineup"
    sleep 0.1
done
wait "$benchmark"
sum() {
    local -n ticks=$1
    local total=0 pid
    for pid in "${!ticks[@]}"; do total=$((total + ticks[$pid])); done
    echo "$total"
}
hertz=$(getconf CLK_TCK)
rate=$(grep -o "daemons$daemons lineup=[0-9]*" "$output" | cut -d= -f2)
echo "daemons=$daemons jobs_per_s=$rate" \
    "daemon_ms_per_1000_jobs=$(($(sum daemonTicks) * 1000 * 1000 / hertz / jobs))" \
    "server_ms_per_1000_jobs=$(($(sum serverTicks) * 1000 * 1000 / hertz / jobs))"
