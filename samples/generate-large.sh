#!/bin/sh
# Writes a large NDBC SOS document of invented observations, for the import benchmark and
# for trying the importer on something big:
#
#   samples/generate-large.sh [OUTPUT [COUNT [STATIONS [SEED]]]]
#
# Defaults: samples/ndbc-sos-waves-200k.xml, 200000 observations, 5 stations, seed 42 (about
# 19 MB; not committed, see samples/.gitignore). The same arguments always give the same file.
# The committed small sample was written with:
#
#   samples/generate-large.sh samples/ndbc-sos-waves-sample.xml 300 3 2024
#
# It compiles BuoyXML's and LineupTestSupport's sources and a three-line main with swiftc, so it
# needs only the Swift toolchain and libxml2-dev, not a build of the whole package.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
output=${1:-$here/ndbc-sos-waves-200k.xml}
count=${2:-200000}
stations=${3:-5}
seed=${4:-42}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

cat > "$work/main.swift" <<'SWIFT'
import Foundation
import LineupTestSupport

let arguments = CommandLine.arguments
let samples = SampleObservations(seed: UInt64(arguments[2])!, count: Int(arguments[3])!, stations: Int(arguments[4])!)
let bytes = try SOSDocumentWriter.write(samples, to: URL(fileURLWithPath: arguments[1]))
print("wrote \(samples.count) observations of \(samples.stations.count) stations, \(bytes) bytes, to \(arguments[1])")
SWIFT

libxml_flags=$(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
xcc_flags=""
for flag in $libxml_flags; do
    xcc_flags="$xcc_flags -Xcc $flag"
done

# Two modules, as in the package: BuoyXML, then LineupTestSupport (which holds the writer and
# the sample sequence), each a static library beside its module file.
# shellcheck disable=SC2086
swiftc -O -swift-version 6 -parse-as-library -package-name lineup -module-name BuoyXML \
    -I "$root/Sources/CLibXML2" $xcc_flags \
    -emit-module -emit-module-path "$work/BuoyXML.swiftmodule" -emit-library -static -o "$work/libBuoyXML.a" \
    "$root"/Sources/BuoyXML/*.swift "$root"/Sources/BuoyXML/Internal/*.swift
# shellcheck disable=SC2086
swiftc -O -swift-version 6 -parse-as-library -package-name lineup -module-name LineupTestSupport \
    -I "$work" -I "$root/Sources/CLibXML2" $xcc_flags \
    -emit-module -emit-module-path "$work/LineupTestSupport.swiftmodule" -emit-library -static \
    -o "$work/libLineupTestSupport.a" "$root"/Sources/LineupTestSupport/*.swift
# shellcheck disable=SC2086
swiftc -O -swift-version 6 -I "$work" -I "$root/Sources/CLibXML2" $xcc_flags "$work/main.swift" \
    -L "$work" -lLineupTestSupport -lBuoyXML -lxml2 -o "$work/generate-samples"

"$work/generate-samples" "$output" "$seed" "$count" "$stations"
