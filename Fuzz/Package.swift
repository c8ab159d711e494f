// swift-tools-version:6.2
// The libFuzzer targets (see FUZZING.md). A package of its own, beside Lineup's, because every
// module it builds, Lineup's included, is compiled with `-sanitize=fuzzer,address` and
// `-parse-as-library` (libFuzzer brings `main`), which a normal build must not be:
//
//   swift build -c release --product fuzz-csv -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//
// scripts/fuzz.sh does that, seeds a corpus and runs the fuzzer.
import PackageDescription

let package = Package(
    name: "LineupFuzz",
    dependencies: [
        .package(name: "Lineup", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // libFuzzer's driver function (the library comes with -sanitize=fuzzer).
        .systemLibrary(name: "CLibFuzzer"),
        // The driver call, the byte cursor that turns a fuzz input into values, and the
        // per-process scratch paths.
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        .executableTarget(
            name: "fuzz-buoy-xml",
            dependencies: [.product(name: "BuoyXML", package: "Lineup"), "FuzzSupport"],
            path: "Sources/FuzzBuoyXML"
        ),
        .executableTarget(
            name: "fuzz-job-file",
            dependencies: [.product(name: "LineupSpool", package: "Lineup"), "FuzzSupport"],
            path: "Sources/FuzzJobFile"
        ),
        .executableTarget(
            name: "fuzz-core-data-store",
            dependencies: [.product(name: "LineupStore", package: "Lineup"), "FuzzSupport"],
            path: "Sources/FuzzCoreDataStore"
        ),
        .executableTarget(
            name: "fuzz-csv",
            dependencies: [.product(name: "SurfJournal", package: "Lineup"), "FuzzSupport"],
            path: "Sources/FuzzCSV"
        ),
        .executableTarget(
            name: "fuzz-fetch-predicate",
            dependencies: [
                .product(name: "LineupStore", package: "Lineup"), .product(name: "Logging", package: "swift-log"), "FuzzSupport",
            ],
            path: "Sources/FuzzFetchPredicate"
        ),
    ],
    swiftLanguageModes: [.v6]
)
