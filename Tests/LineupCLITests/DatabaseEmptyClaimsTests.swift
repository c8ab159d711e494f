import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DaemonTests {
    /// The claims that find nothing (issue 35: wasted claims are counted and stay small), as
    /// `/metrics` counts them for a `lineupd --database`.
    @Suite("empty claims on a database", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct DatabaseEmptyClaimsTests {
        /// As a burst drains, the daemon's window empties job by job. Once a claim has found the
        /// table empty, a job that finishes must not claim again: each such claim would find
        /// nothing too, a statement a job, half a window of them a drain.
        @Test("a drained burst costs the daemon one empty claim, not one for each job that finished after it")
        func aDrainedBurstCostsOneEmptyClaim() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                // A wide window, so that many jobs finish after the table ran empty; polls far
                // apart, so that no poll's claim is counted.
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"claimWindow": 64, "rescanInterval": 600}"#.utf8).write(to: configuration)
                let daemon = try await sandbox.startDaemon([
                    "--database", url, "--config", configuration.path, "--http-address", "127.0.0.1:0", "--flush-interval", "0.2",
                ])
                let base = try await sandbox.httpEndpoint(of: daemon)

                let jobCount = 200
                let burst = sandbox.root.appending(path: "burst.jsonl")
                let lines = (1...jobCount).map { #"{"kind": "statistics", "output": "statistics-\#($0).json"}"# + "\n" }
                try Data(lines.joined().utf8).write(to: burst)
                let enqueued = try await sandbox.lineup(["enqueue", "--from", burst.path, "--database", url])
                #expect(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                try await sandbox.poll("the burst to be done", timeout: .seconds(120), daemon: daemon) {
                    try server.psql("SELECT count(*) FROM lineup_jobs WHERE state = 'done'", database: database) == "\(jobCount)"
                }

                let metrics = try await HTTP.request(base.appending(path: "metrics"))
                let values = MetricsEndpointTests.samples(in: metrics.body)
                let claims = try #require(values["lineup_database_claims_total"], "\(metrics.body)")
                let empty = try #require(values["lineup_database_claims_empty_total"], "\(metrics.body)")
                // One at start, before the burst; one as it drained; one more if a claim ran
                // while the enqueue committed. A claim a finished job would make 30 or more.
                #expect(empty <= 3, "\(Int(claims)) claims, \(Int(empty)) of them empty")
                #expect(claims - empty >= Double(jobCount) / 64, "\(Int(claims)) claims, \(Int(empty)) of them empty")

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
