#!/usr/bin/env bash
# Builds one libFuzzer target with AddressSanitizer and runs it for SECONDS (see FUZZING.md).
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# Targets: buoy-xml (the buoy XML readers through their format-detecting entry point).
# The corpus grows in .build-fuzz/TARGET/corpus (seeded from samples/ and ../shared/corpus);
# a crash is written to .build-fuzz/TARGET/ as crash-<sha1>: add it to Tests/ as a regression.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: scripts/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
shift 2
work=.build-fuzz/$target
mkdir -p "$work/corpus"

case "$target" in
buoy-xml)
    sources=(Sources/BuoyXML/*.swift Sources/BuoyXML/Internal/*.swift Fuzz/buoy-xml/*.swift)
    libxml_flags=$(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
    flags=(-I Sources/CLibXML2)
    for flag in $libxml_flags; do flags+=(-Xcc "$flag"); done
    libraries=(-lxml2)
    seeds=(samples/*.xml ../shared/corpus/ndbc/*.xml Tests/BuoyXMLTests/Fuzz/*)
    options=(-dict=Fuzz/buoy-xml/xml.dict -max_len=65536)
    ;;
*)
    echo "unknown target: $target (known: buoy-xml)" >&2
    exit 64
    ;;
esac

# One module of the library's sources and the entry point: no package build needed.
swiftc -O -swift-version 6 -parse-as-library -package-name lineup -module-name "Fuzz_${target//-/_}" \
    -sanitize=fuzzer,address "${flags[@]}" "${sources[@]}" "${libraries[@]}" -o "$work/fuzzer" 2>&1 |
    grep -v "Cannot export local symbol" || true
for seed in "${seeds[@]}"; do
    [ -f "$seed" ] && cp -n "$seed" "$work/corpus/" || true
done
TMPDIR=${TMPDIR:-/dev/shm} "$work/fuzzer" "$work/corpus" -max_total_time="$seconds" -artifact_prefix="$work/" \
    -print_final_stats=1 "${options[@]}" "$@"
