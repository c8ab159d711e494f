// swift-tools-version:6.2
import PackageDescription

/// Release builds of the executables link jemalloc (Debian's libjemalloc-dev) in place of glibc's
/// malloc: the stack's rows are made on one thread and freed on another, which glibc serves
/// under one arena lock per free (see ProcessAllocator). Debug builds do not: a `--sanitize`
/// build brings its own malloc, and jemalloc's C++ `operator new`, which no sanitizer replaces,
/// would then hand memory that the sanitizer's `free` cannot take back.
let linksJemalloc: [LinkerSetting] = [.linkedLibrary("jemalloc", .when(platforms: [.linux], configuration: .release))]

let package = Package(
    name: "Lineup",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LineupStore", targets: ["LineupStore"]),
        .library(name: "LineupSpool", targets: ["LineupSpool"]),
        .library(name: "LineupJobs", targets: ["LineupJobs"]),
        .library(name: "LineupPostgres", targets: ["LineupPostgres"]),
        .library(name: "LineupServer", targets: ["LineupServer"]),
        .library(name: "LineupTesting", targets: ["LineupTesting"]),
        .library(name: "BuoyXML", targets: ["BuoyXML"]),
        .library(name: "SurfJournal", targets: ["SurfJournal"]),
        .library(name: "SurfJournalFeeds", targets: ["SurfJournalFeeds"]),
        .executable(name: "lineupd", targets: ["lineupd"]),
        .executable(name: "lineup", targets: ["lineup"]),
        .executable(name: "lineup-bench", targets: ["lineup-bench"]),
    ],
    traits: [
        // lineupd's OTLP exporter (swift-otel). On by default; `--disable-default-traits` leaves
        // it out, for a build that swift-otel 1.6.0 does not compile in: under
        // `--sanitize=thread`, Swift 6.3 refuses its log processor (a data-race diagnostic).
        // Without it `--otel-endpoint` is refused with that reason; the spans themselves
        // (swift-distributed-tracing, in LineupJobs) are there either way.
        .trait(name: "OTLPExporter", description: "lineupd exports spans over OTLP/HTTP with swift-otel"),
        .default(enabledTraits: ["OTLPExporter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // lineupd's HTTP endpoint: /metrics in the Prometheus text format, and /health.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // The PostgreSQL store (`PersistentContainer(url: postgres://…)`).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // fetch-buoy's HTTP(S) client (SurfJournalFeeds).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // `swift package generate-documentation` for the DocC catalogs of LineupStore and LineupJobs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Spans of attempts and flushes, and the trace context a job carries from its enqueuer.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // lineupd's exporter of those spans, over OTLP/HTTP only: its gRPC trait would bring
        // grpc-swift and nio-http2 into every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The one lock type the other modules share.
        .target(name: "LineupLocking"),
        // The object-graph stack: contexts, objects, fetches, the SQLite store. No NIO: an app on
        // SQLite links neither PostgresNIO nor Hummingbird (a test reads the linked binary).
        .target(
            name: "LineupStore",
            dependencies: [
                "LineupLocking",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The job file format and the spool directory protocol. Foundation (and the lock) only,
        // so that any producer of jobs can link it without SQLite or libxml2.
        // Instrumentation (and ServiceContext, which it needs) is small and pure Swift: job files
        // take the enqueuer's trace context from it (`traceparent`).
        .target(
            name: "LineupSpool",
            dependencies: ["LineupLocking", .product(name: "Instrumentation", package: "swift-distributed-tracing")]
        ),
        // Task operations, the runner, the flush scheduler and the daemon lifecycle.
        .target(
            name: "LineupJobs",
            dependencies: [
                "LineupLocking",
                "LineupStore",
                "LineupSpool",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The PostgreSQL store and the jobs table that several daemons share (DESIGN §6).
        .target(
            name: "LineupPostgres",
            dependencies: [
                "LineupLocking",
                "LineupStore",
                "LineupSpool",
                "LineupJobs",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The daemon's HTTP side: the dashboard, its JSON API, /metrics and /health.
        .target(
            name: "LineupServer",
            dependencies: [
                "LineupLocking",
                "LineupJobs",
                "LineupSpool",
                "LineupStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The dashboard's page, compiled into the binary (PackageResources): nothing to
            // install beside it, nothing fetched from elsewhere.
            resources: [
                .embedInCode("Dashboard/index.html"), .embedInCode("Dashboard/dashboard.css"),
                .embedInCode("Dashboard/dashboard.js"), .embedInCode("Dashboard/browser.js"),
            ]
        ),
        // For users' tests of their jobs: a daemon over a temporary directory, a clock the test
        // moves, inline runs, draining.
        .target(
            name: "LineupTesting",
            dependencies: [
                "LineupLocking", "LineupStore", "LineupJobs", "LineupSpool", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // Which allocator serves malloc: the executables report it (see ProcessAllocator, and
        // `linksJemalloc` at the top).
        .target(name: "LineupAllocator"),
        // lineupd's signals blocked by a C constructor, before any Swift code runs: a signal sent
        // while the binary still loads waits for the daemon's handlers instead of killing it.
        .target(name: "LineupdSignals"),
        // Streaming readers of the NDBC buoy XML formats, in SI units.
        .target(name: "BuoyXML", dependencies: ["CLibXML2"]),
        // What the tests and the benchmark share: seeded randomness, fixture writers and
        // fixture files. No library depends on it: the libraries ship no test fixtures.
        .target(name: "LineupTestSupport", dependencies: ["BuoyXML", "LineupLocking"]),
        // The surf journal domain: model, built-in tasks, CSV, statistics.
        .target(
            name: "SurfJournal",
            dependencies: [
                "LineupStore",
                "LineupJobs",
                "LineupSpool",
                "BuoyXML",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // fetch-buoy: NDBC feeds over HTTP(S), imported as import-buoy imports files. Its own
        // target, so that SurfJournal (and an app on it) links no NIO.
        .target(
            name: "SurfJournalFeeds",
            dependencies: [
                "LineupLocking",
                "LineupJobs",
                "LineupSpool",
                "LineupStore",
                "SurfJournal",
                "BuoyXML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "lineupd",
            dependencies: [
                "LineupAllocator",
                "LineupdSignals",
                "LineupLocking",
                "LineupJobs",
                "LineupSpool",
                "LineupStore",
                "LineupPostgres",
                "LineupServer",
                "SurfJournal",
                "SurfJournalFeeds",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The OTLP exporter of the spans (`--otel-endpoint`): the binary's choice, as
                // the log handler is.
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLPExporter"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            linkerSettings: linksJemalloc
        ),
        .executableTarget(
            name: "lineup",
            dependencies: [
                "LineupAllocator",
                "LineupSpool",
                "LineupJobs",
                "LineupStore",
                "LineupPostgres",
                "SurfJournal",
                "SurfJournalFeeds",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // The demo's loopback feed server, which fetch-buoy reads offline.
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            linkerSettings: linksJemalloc
        ),
        .executableTarget(
            name: "lineup-bench",
            dependencies: [
                "LineupAllocator",
                "LineupLocking",
                "LineupStore",
                "LineupSpool",
                "LineupJobs",
                "LineupPostgres",
                "SurfJournal",
                "BuoyXML",
                "LineupTestSupport",
                "CLibXML2",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                // A bench daemon's claim counts and times (BenchDaemonProcess).
                .product(name: "Metrics", package: "swift-metrics"),
                // The raw PostgreSQL baseline.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            linkerSettings: linksJemalloc
        ),
        // The README's and the docs' example of a daemon of your own, built (and run by a test)
        // so that it stays true.
        .executableTarget(
            name: "note-daemon",
            dependencies: ["LineupJobs", "LineupStore", .product(name: "Logging", package: "swift-log")],
            path: "Examples/NoteDaemon"
        ),
        // An example service: an HTTP endpoint records a surf session and, in the same save,
        // enqueues a statistics job; it runs its own daemon (a CLI test drives it over HTTP).
        .executableTarget(
            name: "surf-sessions",
            dependencies: [
                "LineupJobs", "LineupStore", "LineupSpool", "SurfJournal", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/SurfSessions"
        ),
        // The example's tests, written with LineupTesting as a user would write theirs.
        .testTarget(
            name: "NoteDaemonTests",
            dependencies: ["note-daemon", "LineupTesting", "LineupJobs", "LineupSpool", "LineupStore"],
            path: "Examples/NoteDaemonTests"
        ),
        .testTarget(
            name: "LineupStoreTests",
            // LineupPostgres: the stack's tests run on both stores.
            dependencies: [
                "LineupStore", "LineupPostgres", "LineupLocking", "LineupTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Fuzz/ holds the fuzzers' inputs, seeds for scripts/fuzz.sh (see FUZZING.md).
            exclude: ["Fuzz"]
        ),
        .testTarget(name: "LineupLockingTests", dependencies: ["LineupLocking"]),
        .testTarget(
            name: "LineupTestingTests",
            dependencies: ["LineupTesting", "LineupJobs", "LineupSpool", "LineupStore", "LineupLocking", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "LineupSpoolTests", dependencies: ["LineupSpool", "LineupTestSupport"], exclude: ["Fuzz"]),
        // Fuzz/ holds the inputs the fuzzers found problems with (see FuzzRegressionTests).
        .testTarget(name: "BuoyXMLTests", dependencies: ["BuoyXML", "LineupTestSupport"], exclude: ["Fuzz"]),
        .testTarget(
            name: "LineupJobsTests",
            dependencies: [
                "LineupJobs", "LineupPostgres", "LineupStore", "LineupSpool", "LineupLocking", "LineupTestSupport", .product(name: "Logging", package: "swift-log"),
                "LineupTesting",
            ]
        ),
        .testTarget(
            name: "SurfJournalTests",
            dependencies: [
                "SurfJournal", "LineupStore", "LineupJobs", "LineupSpool", "LineupLocking", "LineupTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // fetch-buoy against a Hummingbird server the tests start on 127.0.0.1.
        .testTarget(
            name: "SurfJournalFeedsTests",
            dependencies: [
                "SurfJournalFeeds", "SurfJournal", "LineupJobs", "LineupStore", "LineupSpool", "LineupLocking", "BuoyXML",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Runs the built `lineupd` and `lineup` as child processes; depending on them makes
        // SwiftPM build them before the tests.
        .testTarget(
            name: "LineupCLITests",
            dependencies: [
                "lineupd", "lineup", "note-daemon", "surf-sessions", "LineupAllocator", "LineupSpool", "LineupJobs", "LineupServer", "BuoyXML",
                "LineupTestSupport", "LineupLocking",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The tracing test: a span of its own around the enqueue, and a loopback OTLP
                // receiver for lineupd's exporter.
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLPExporter"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Strict settings for every Swift target of ours, in one place (as swift-log does).
let cTargets: Set<String> = ["LineupdSignals"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.unsafeFlags(["-Xfrontend", "-require-explicit-sendable"]))
    settings.append(.unsafeFlags(["-strict-concurrency=complete"]))
    if Context.environment["LINEUP_WARNINGS_AS_ERRORS"] == "1" {
        settings.append(.treatAllWarnings(as: .error))
    }
    target.swiftSettings = settings
}
