import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// The job browser of a `lineupd --database`: the table's jobs (every host's), and every
    /// daemon with its lease, not the host's spool.
    @Suite("Job browser on a database", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct JobBrowserDatabaseTests {
        @Test("lists every daemon's jobs from the table, pages them, and shows every daemon with its lease")
        func theTableAndTheDaemons() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                // Jobs of a kind no daemon knows: they fail, and can be retried.
                let jobs = sandbox.root.appending(path: "jobs.jsonl")
                try Data(
                    (1...5).map { #"{"kind": "no-such-kind", "id": "table-\#($0)"}"# }.joined(separator: "\n").utf8
                ).write(to: jobs)
                let enqueued = try await sandbox.lineup(["enqueue", "--from", jobs.path, "--database", url])
                #expect(enqueued.standardOutput.contains("5 job(s) inserted"), "\(enqueued.standardError)")
                // Another daemon, on a spool of its own (as another host's), runs them all before the
                // daemon whose dashboard is read starts: its browser lists them all the same.
                let host = sandbox.root.appending(path: "other-host", directoryHint: .isDirectory)
                try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
                let other = try sandbox.launch(
                    Binaries.lineupd,
                    [
                        "--database", url, "--spool", host.appending(path: "spool").path, "--input", sandbox.input.path,
                        "--output", host.appending(path: "output").path,
                    ], logName: "lineupd-other-host")
                defer { other.send(SIGKILL) }
                try await sandbox.poll("the other daemon to fail the five jobs", timeout: .seconds(60), daemon: other) {
                    try server.psql("SELECT count(*) FROM lineup_jobs WHERE state = 'failed'", database: database) == "5"
                }
                let tokenFile = sandbox.root.appending(path: "token")
                try Data(JobBrowserTests.token.utf8).write(to: tokenFile)
                let daemon = try await sandbox.startDaemon([
                    "--database", url, "--http-address", "127.0.0.1:0", "--http-token-file", tokenFile.path,
                ])
                let base = try await sandbox.httpEndpoint(of: daemon)
                func page(_ query: String) async throws -> [String: Any] {
                    let answer = try await HTTP.request(try #require(URL(string: base.absoluteString + "/api/jobs?" + query)))
                    try #require(answer.status == 200, "\(answer.body)")
                    return try DashboardTests.object(answer.body)
                }
                func ids(_ page: [String: Any]) -> [String] {
                    ((page["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
                }
                let first = try await page("state=failed&limit=2")
                #expect(first["source"] as? String == "database")
                #expect(ids(first) == ["table-5", "table-4"], "newest first")
                let rows = try #require(first["jobs"] as? [[String: Any]])
                #expect(rows.allSatisfy { $0["kind"] as? String == "no-such-kind" && ($0["reason"] as? String)?.contains("unknown kind") == true })
                let next = try #require(first["next"] as? String)
                let second = try await page("state=failed&limit=2&after=\(next)")
                #expect(ids(second) == ["table-3", "table-2"])
                #expect(ids(try await page("state=failed&limit=2&after=\(try #require(second["next"] as? String))")) == ["table-1"])
                #expect(ids(try await page("q=TABLE-3")) == ["table-3"], "a search ignores case")
                #expect(ids(try await page("kind=other")).isEmpty)
                #expect(ids(try await page("state=done")).isEmpty)

                let daemons = try DashboardTests.object(try await HTTP.request(base.appending(path: "api/daemons")).body)
                let leases = try #require(daemons["daemons"] as? [[String: Any]])
                #expect(Set(leases.compactMap { $0["pid"] as? Int }) == [Int(daemon.pid), Int(other.pid)], "\(daemons)")
                #expect(leases.allSatisfy { $0["leaseExpiresAt"] != nil }, "\(daemons)")

                let bulk = base.appending(path: "api/jobs/bulk")
                let body = Data(#"{"action": "discard", "q": "table-1"}"#.utf8)
                #expect(try await HTTP.request(bulk, method: "POST", body: body).status == 401)
                let discarded = try DashboardTests.object(
                    try await HTTP.request(bulk, method: "POST", headers: ["Authorization": "Bearer \(JobBrowserTests.token)"], body: body).body)
                #expect(discarded["acted"] as? Int == 1, "\(discarded)")
                #expect(try server.psql("SELECT count(*) FROM lineup_jobs", database: database) == "4")
                let retried = try DashboardTests.object(
                    try await HTTP.request(
                        bulk, method: "POST", headers: ["Authorization": "Bearer \(JobBrowserTests.token)"],
                        body: Data(#"{"action": "retry", "state": "failed"}"#.utf8)
                    ).body)
                #expect(retried["acted"] as? Int == 4, "\(retried)")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
                other.send(SIGTERM)
                #expect(try await other.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
