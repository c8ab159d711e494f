#!/usr/bin/env bash
# Runs one lineup-bench row with two builds in turn (A, B, A, B, …) and prints each run's RESULT
# lines, so that a change is weighed against its base on the same noisy machine in the same
# minutes. Quote the ratios (Lineup against the raw baseline of the same run), not the times.
#
#   scripts/bench-alternate.sh BASE_BENCH NEW_BENCH ROUNDS ROW [lineup-bench options…]
#   scripts/bench-alternate.sh ../base/.build-release/release/lineup-bench \
#       .build-release/release/lineup-bench 3 spool --jobs 20000 --dir /dev/shm
set -euo pipefail
if [ "$#" -lt 4 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
base=$1 new=$2 rounds=$3
shift 3
for round in $(seq 1 "$rounds"); do
    for build in base new; do
        bench=$base
        [ "$build" = new ] && bench=$new
        "$bench" "$@" 2>/dev/null | grep '^RESULT' | sed "s/^/$build round $round: /"
    done
done
