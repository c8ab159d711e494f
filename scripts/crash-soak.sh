#!/usr/bin/env bash
# The crash soak (issue 9): the real lineupd under a mixed workload, SIGKILLed at random moments
# and restarted, N times, with the invariants checked after every kill (see
# Tests/LineupCLITests/CrashSoakTests.swift). Not run in CI; prints the seed, which replays a run.
#
#   scripts/crash-soak.sh --kills 1000 [--seed N]
set -euo pipefail
cd "$(dirname "$0")/.."

kills=100
seed=""
while [ $# -gt 0 ]; do
    case "$1" in
        --kills) kills="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        *) echo "usage: $0 --kills N [--seed N]" >&2; exit 64 ;;
    esac
done

swift build --build-tests >/dev/null
LINEUP_SOAK_KILLS="$kills" LINEUP_SOAK_SEED="${seed:-$(date +%s)}" \
    swift test --skip-build --filter CrashSoakTests 2>&1 | grep -E '^crash soak|✘|recorded an issue|passed after|failed after'
