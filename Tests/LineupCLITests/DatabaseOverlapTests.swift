import BuoyXML
import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// Two hosts' `fetch-buoy` cron entries on one feed: two `lineupd --database` daemons import
    /// 60 documents of the same three stations at once, each document overlapping the one before
    /// it by three quarters. The daemons write the same rows: one inserts a key the other inserted
    /// since, or updates a row the other updated since. Each such conflict is settled at the store
    /// by the import's merge policy (`.mergeByPropertyObjectTrump`), as Core Data's coordinator
    /// settles it: no daemon stops, no attempt fails, and every observation is there once.
    @Suite(
        "Two daemons writing the same rows",
        .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct DatabaseOverlapTests {
        static let documents = 60
        static let stations = 3
        static let observationsPerDocument = 200

        @Test("60 overlapping imports on two daemons: no daemon stops, no attempt fails, every row once")
        func overlappingImportsOnTwoDaemons() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            func psql(_ sql: String) throws -> String { try server.psql(sql, database: database) }

            try await withSandbox { sandbox in
                var all: [BuoyObservationRecord] = []
                var lines: [String] = []
                for number in 0..<Self.documents {
                    let records = BuoyFixtures.records(
                        station: "OV\(number % Self.stations)", seed: UInt64(number + 1), count: Self.observationsPerDocument,
                        offset: (number / Self.stations) * Self.observationsPerDocument / 4)
                    all += records
                    try BuoyFixtures.writeSOS(records, to: sandbox.input.appending(path: "ov-\(number).xml"))
                    lines.append(#"{"kind":"import-buoy","id":"ov-\#(number)","input":"ov-\#(number).xml"}"#)
                }
                let expectedRows = BuoyFixtures.distinctKeysPerStation(all).values.reduce(0, +)
                #expect(expectedRows < Self.documents * Self.observationsPerDocument, "the documents overlap")

                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(
                    #"{"poisonThreshold": 1000, "flushInterval": 0.3, "rescanInterval": 0.1, "concurrency": 2, "lease": 30}"#.utf8
                ).write(to: configuration)
                let daemons = try (0..<2).map { index in
                    let host = sandbox.root.appending(path: "host-\(index)", directoryHint: .isDirectory)
                    try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
                    return try sandbox.launch(
                        Binaries.lineupd,
                        [
                            "--database", url, "--spool", host.appending(path: "spool").path, "--input", sandbox.input.path,
                            "--output", host.appending(path: "output").path, "--config", configuration.path,
                        ], logName: "lineupd-overlap-\(index)")
                }
                try await sandbox.poll("the daemons to start", timeout: .seconds(60)) {
                    daemons.allSatisfy { $0.standardError.contains(Sandbox.startedLine) }
                }
                let file = sandbox.root.appending(path: "imports.jsonl")
                try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
                let enqueued = try await sandbox.lineup(["enqueue", "--from", file.path, "--database", url])
                try #require(enqueued.termination == .exited(0), "\(enqueued.standardError)")

                try await sandbox.poll("every import to be done or failed", timeout: .seconds(120)) {
                    guard daemons.allSatisfy(\.isRunning) else { return true }
                    return (try? psql("SELECT count(*) FROM lineup_jobs WHERE state IN ('done', 'failed')")) == "\(Self.documents)"
                }
                for (index, daemon) in daemons.enumerated() {
                    #expect(daemon.isRunning, "daemon \(index) stopped (\(daemon.isRunning ? "" : "\(daemon.termination)")):\n\(daemon.logTail())")
                }
                #expect(try psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state") == "done|\(Self.documents)")
                #expect(try psql("SELECT sum(failed_attempts) FROM lineup_jobs") == "0")
                let rows = try psql(#"SELECT count(*), count(DISTINCT ("station", "time")) FROM "BuoyObservation""#)
                #expect(rows == "\(expectedRows)|\(expectedRows)", "rows, distinct keys: \(rows); expected \(expectedRows)")
                #expect(try psql(#"SELECT count(*) FROM "BuoyStation""#) == "\(Self.stations)")
                let logs = daemons.map(\.standardError)
                let jobsPerDaemon = logs.map { $0.components(separatedBy: "job acknowledged").count - 1 }
                print("overlapping imports on two daemons: jobs acknowledged per daemon \(jobsPerDaemon)")
                #expect(jobsPerDaemon.allSatisfy { $0 > 0 }, "both daemons took part: \(jobsPerDaemon)")
                for daemon in daemons { daemon.send(SIGTERM) }
                for daemon in daemons {
                    let termination = try await daemon.waitForExit(timeout: .seconds(60))
                    #expect(termination == .exited(0), "\(termination)\n\(daemon.logTail())")
                }
            }
        }
    }
}
