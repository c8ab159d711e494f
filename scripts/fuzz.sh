#!/usr/bin/env bash
# Builds one libFuzzer target with AddressSanitizer and runs it for SECONDS (see FUZZING.md).
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# Targets (Fuzz/Package.swift): buoy-xml, job-file, core-data-store, csv, fetch-predicate.
# The corpus grows in .build-fuzz/TARGET/corpus, seeded from samples/, Jobs/, ../shared/corpus
# and the regression inputs in Tests/; a crash is written to .build-fuzz/TARGET/ as
# crash-<sha1>: add it to Tests/ as a regression.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]}
shift 2
work=$root/.build-fuzz/$target
mkdir -p "$work/corpus"

seeds=()
options=()
case "$target" in
buoy-xml)
    seeds=(samples/*.xml ../shared/corpus/ndbc/*.xml Tests/BuoyXMLTests/Fuzz/*)
    options=(-dict=Fuzz/Dictionaries/xml.dict -max_len=65536)
    ;;
job-file)
    seeds=(Jobs/*.json Tests/LineupSpoolTests/Fuzz/*)
    options=(-dict=Fuzz/Dictionaries/job-file.dict -max_len=4096)
    ;;
core-data-store)
    # Whole SQLite files: a store of our own, and small copies of the real SurfJournal store
    # checkpointed into one file (see scripts/fuzz-seed-stores.py).
    real_store=../shared/corpus/surfjournal/SurfJournalModel.sqlite
    if [ -f "$real_store" ]; then
        python3 scripts/fuzz-seed-stores.py "$work/seeds" "$real_store"
    else
        python3 scripts/fuzz-seed-stores.py "$work/seeds"
    fi
    seeds=("$work"/seeds/* Tests/LineupStoreTests/Fuzz/core-data-store/*)
    options=(-max_len=65536)
    ;;
csv)
    seeds=(Tests/SurfJournalTests/Fuzz/*)
    ;;
fetch-predicate)
    seeds=(Tests/LineupStoreTests/Fuzz/fetch-predicate/*)
    ;;
*)
    echo "unknown target: $target (known: buoy-xml, job-file, core-data-store, csv, fetch-predicate)" >&2
    exit 64
    ;;
esac

# Every module of the fuzz package, Lineup's included, is instrumented. ld.gold fails on
# libFuzzer's archive with the Swift runtime, so the toolchain's lld links.
if ! (cd Fuzz && swift build -c release --scratch-path "$root/.build-fuzz/spm" --product "fuzz-$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld) >"$work/build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$work/build.log" >&2
    echo "fuzz.sh: building fuzz-$target failed (log: $work/build.log)" >&2
    exit 1
fi
fuzzer=$root/.build-fuzz/spm/release/fuzz-$target
for seed in "${seeds[@]}"; do
    [ -f "$seed" ] && cp -n "$seed" "$work/corpus/" || true
done
scratch=$(mktemp -d "${FUZZ_TMPDIR:-/dev/shm}/lineup-fuzz-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# Swift's backtracer would stall under the sanitizer; libFuzzer and ASan print the stack.
SWIFT_BACKTRACE=enable=no TMPDIR=$scratch "$fuzzer" "$work/corpus" -max_total_time="$seconds" -artifact_prefix="$work/" \
    -print_final_stats=1 "${options[@]}" "$@"
