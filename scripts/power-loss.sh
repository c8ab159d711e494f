#!/usr/bin/env bash
# Simulated power loss (issue 9): records lineupd's file operations with an LD_PRELOAD
# interposer, rebuilds what a power cut after each fsync would leave, and checks that the daemon
# recovers from each such state without losing or duplicating a job (see
# scripts/powerloss/powerloss.py). Not run in CI in full; prints the seed of its sample.
#
#   scripts/power-loss.sh [--cuts N|all] [--seed N] [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product lineupd >/dev/null
swift build --product lineup >/dev/null
mkdir -p .build
cc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -o .build/lineup-interpose.so scripts/powerloss/interpose.c -ldl
exec python3 scripts/powerloss/powerloss.py --interposer .build/lineup-interpose.so "$@"
