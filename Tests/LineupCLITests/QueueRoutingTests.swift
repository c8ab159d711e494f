import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// DESIGN §10, one routing rule: a job runs in the queue it names, else in its kind's. A real
    /// `lineupd --database` with a queue `fetches` (one at a time) that runs `fetch-buoy`, and
    /// `statistics` jobs, which run in the default queue unless their file names `fetches`.
    @Suite("One routing rule", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct QueueRoutingTests {
        @Test("a job naming a queue its kind does not run in: the runner, the claim, the browser and the dashboard all put it there")
        func theRunnerTheClaimTheBrowserAndTheDashboardAgree() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                let silent = try CancelRunningCommandTests.SilentServer()
                let configuration = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"queues": {"fetches": {"concurrency": 1, "kinds": ["fetch-buoy"]}}}"#.utf8).write(to: configuration)
                let tokenFile = sandbox.root.appending(path: "token")
                try Data(JobBrowserTests.token.utf8).write(to: tokenFile)
                let daemon = try await sandbox.startDaemon([
                    "--database", url, "--config", configuration.path, "--allowed-host", "127.0.0.1", "--flush-interval", "0.2",
                    "--http-address", "127.0.0.1:0", "--http-token-file", tokenFile.path,
                ])
                let base = try await sandbox.httpEndpoint(of: daemon)
                func enqueue(_ arguments: [String]) async throws {
                    let result = try await sandbox.lineup(["enqueue"] + arguments + ["--database", url])
                    try #require(result.termination == .exited(0), "\(result.standardError)")
                }
                func state(_ id: String) throws -> String {
                    try server.psql("SELECT state FROM lineup_jobs WHERE job_id = '\(id)'", database: database)
                }
                func rows(_ query: String) async throws -> [[String: Any]] {
                    let answer = try await HTTP.request(try #require(URL(string: base.absoluteString + "/api/jobs?" + query)))
                    try #require(answer.status == 200, "\(answer.body)")
                    return try #require(try DashboardTests.object(answer.body)["jobs"] as? [[String: Any]])
                }
                func queues(_ rows: [[String: Any]]) -> [String: String] {
                    Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["id"] as? String).map { ($0, row["queue"] as? String ?? "default") } })
                }

                // The runner: `fetches` runs one job at a time, and a fetch that never gets an
                // answer holds it. A statistics job naming `fetches` waits behind it; one that names
                // no queue runs in the default queue meanwhile.
                try await enqueue(["fetch-buoy", "url=\(silent.url)", "--id", "blocker"])
                try await sandbox.poll("the fetch to be claimed", daemon: daemon) { try state("blocker") == "running" }
                try await enqueue(["statistics", "output=named.json", "--queue", "fetches", "--id", "named"])
                try await enqueue(["statistics", "output=plain.json", "--id", "plain"])
                try await sandbox.poll("the job naming no queue to be done", daemon: daemon) { try state("plain") == "done" }
                #expect(try state("named") != "done", "it waits in fetches, behind the fetch")
                #expect(!FileManager.default.fileExists(atPath: sandbox.output.appending(path: "named.json").path))

                // The browser (a JobQuery for the queue) and the dashboard's JSON: the job is in
                // `fetches`, and its row says so.
                let fetches = try await rows("queue=fetches")
                #expect(Set(queues(fetches).keys) == ["blocker", "named"], "\(fetches)")
                #expect(queues(fetches)["named"] == "fetches")
                let inDefault = try await rows("queue=default")
                #expect(Set(queues(inDefault).keys) == ["plain"], "\(inDefault)")
                let statistics = queues(try await rows("kind=statistics"))
                #expect(statistics == ["named": "fetches", "plain": "default"], "\(statistics)")

                // Once the fetch is cancelled, the job it held runs, in its queue.
                let cancelled = try await sandbox.lineup(["cancel", "blocker", "--database", url])
                #expect(cancelled.termination == .exited(0), "\(cancelled.standardError)")
                try await sandbox.poll("the job naming fetches to be done", daemon: daemon) { try state("named") == "done" }

                // The claim statement: with `fetches` paused, a statistics job naming it stays
                // queued, and one naming no queue is claimed and runs.
                let paused = try await sandbox.lineup(["pause", "--queue", "fetches", "--database", url])
                #expect(paused.termination == .exited(0), "\(paused.standardError)")
                try await enqueue(["statistics", "output=held.json", "--queue", "fetches", "--id", "held"])
                try await enqueue(["statistics", "output=free.json", "--id", "free"])
                try await sandbox.poll("the job naming no queue to be done", daemon: daemon) { try state("free") == "done" }
                #expect(try state("held") == "queued", "a job naming a paused queue is not claimed")
                let resumed = try await sandbox.lineup(["resume", "--queue", "fetches", "--database", url])
                #expect(resumed.termination == .exited(0), "\(resumed.standardError)")
                try await sandbox.poll("the job naming fetches to run once it is resumed", daemon: daemon) { try state("held") == "done" }

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }
    }
}
