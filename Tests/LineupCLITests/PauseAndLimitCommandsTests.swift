import Foundation
import LineupTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// `lineup pause` and `resume`, the dashboard's pause and resume actions, and the limits of
    /// the configuration file in the status, the metrics and the dashboard's API.
    @Suite("Pauses and limits")
    struct PauseAndLimitCommandsTests {
        static let token = "a-token-for-the-tests-0123456789"
        var bearer: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

        @Test("a paused kind's job stays in new/ while another runs, the status says so, and resume runs it")
        func pauseAndResumeOnASpool() async throws {
            try await withSandbox { sandbox in
                var result = try await sandbox.lineup(["pause", "--spool", "spool"])
                #expect(result.termination != .exited(0))
                #expect(result.standardError.contains("give --kind or --queue"), "\(result.standardError)")
                result = try await sandbox.lineup(["pause", "--kind", "statistics", "--spool", "spool"])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(result.standardOutput.contains("kind:statistics: paused in "), "\(result.standardOutput)")
                result = try await sandbox.lineup(["pause", "--kind", "statistics", "--spool", "spool"])
                #expect(result.standardOutput.contains("kind:statistics: paused already"), "\(result.standardOutput)")

                let daemon = try await sandbox.startDaemon(["--flush-interval", "0.2"])
                result = try await sandbox.lineup(["enqueue", "statistics", "output=s.json", "--id", "held", "--spool", "spool"])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                try await sandbox.enqueueImport(id: "missing", input: "no-such-file.xml")
                try await sandbox.poll("the import to fail", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }
                #expect(try sandbox.jobFiles("new").count == 1, "the paused kind's job is not claimed")
                result = try await sandbox.lineup(["status", "--spool", "spool"])
                #expect(result.standardOutput.contains("paused: kind:statistics"), "\(result.standardOutput)")
                result = try await sandbox.lineup(["status", "--json", "--spool", "spool"])
                #expect(result.standardOutput.contains(#""paused":["kind:statistics"]"#), "\(result.standardOutput)")

                result = try await sandbox.lineup(["resume", "--kind", "statistics", "--spool", "spool"])
                #expect(result.standardOutput.contains("kind:statistics: resumed"), "\(result.standardOutput)")
                #expect(result.standardOutput.contains("paused: nothing"), "\(result.standardOutput)")
                try await sandbox.poll("the resumed job to be done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 1 }
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("the dashboard pauses and resumes with the token, shows what is paused and the limits, and /metrics has them")
        func dashboardAndMetrics() async throws {
            try await withSandbox { sandbox in
                let tokenFile = sandbox.root.appending(path: "token")
                try Data("\(Self.token)\n".utf8).write(to: tokenFile)
                let config = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"limits": {"kind:statistics": {"running": 1, "rate": 5, "per": 60}}}"#.utf8).write(to: config)
                let daemon = try await sandbox.startDaemon([
                    "--http-address", "127.0.0.1:0", "--http-token-file", tokenFile.path, "--flush-interval", "0.2", "--config", config.path,
                ])
                let base = try await sandbox.httpEndpoint(of: daemon)
                let page = try await HTTP.request(base)
                #expect(page.body.contains(#"<button id="pause" type="submit">Pause</button>"#))
                let script = try await HTTP.request(base.appending(path: "dashboard.js"))
                #expect(script.body.contains(#"scopePath("pause""#) && script.body.contains(#"scopePath("resume", scope)"#))

                let pause = base.appending(path: "api/pause/kind/statistics")
                #expect(try await HTTP.request(pause, method: "POST").status == 401)
                #expect(try await HTTP.request(pause).status == 405)
                let paused = try await HTTP.request(pause, method: "POST", headers: bearer)
                #expect(paused.status == 200, "\(paused.body)")
                #expect(paused.body.contains(#""changed":"true""#) && paused.body.contains(#""scope":"kind:statistics""#), "\(paused.body)")
                #expect(FileManager.default.fileExists(atPath: sandbox.spool.appending(path: "paused.json").path))

                let result = try await sandbox.lineup(["enqueue", "statistics", "output=s.json", "--id", "held", "--spool", sandbox.spool.path])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                try await Task.sleep(for: .milliseconds(1500))
                #expect(try sandbox.jobFiles("new").count == 1)
                let status = try await HTTP.request(base.appending(path: "api/status"))
                #expect(status.body.contains(#""paused":["kind:statistics"]"#), "\(status.body)")
                #expect(status.body.contains(#""limits":[{"claimedInPeriod":0,"holdingBack":false,"maxRunning":1,"period":60,"rate":5,"running":0,"scope":"kind:statistics"}]"#), "\(status.body)")

                let metrics = try await HTTP.request(base.appending(path: "metrics"))
                let values = MetricsEndpointTests.samples(in: metrics.body)
                #expect(values[#"lineup_paused{scope="kind:statistics"}"#] == 1, "\(metrics.body)")
                #expect(values[#"lineup_limit_running{scope="kind:statistics"}"#] == 0)
                #expect(values[#"lineup_limit_running_max{scope="kind:statistics"}"#] == 1)
                #expect(values[#"lineup_limit_rate{scope="kind:statistics"}"#] == 5)
                #expect(values[#"lineup_limit_holding_back{scope="kind:statistics"}"#] == 0)
                if let promtool = MetricsEndpointTests.promtool {
                    let scrape = sandbox.root.appending(path: "scrape.prom")
                    try Data(metrics.body.utf8).write(to: scrape)
                    let check = try await sandbox.run(
                        URL(fileURLWithPath: "/bin/sh"), ["-c", #""$0" check metrics < "$1""#, promtool.path, scrape.path])
                    #expect(check.termination == .exited(0), "promtool: \(check.standardOutput) \(check.standardError)")
                }

                let resumed = try await HTTP.request(base.appending(path: "api/resume/kind/statistics"), method: "POST", headers: bearer)
                #expect(resumed.status == 200, "\(resumed.body)")
                try await sandbox.poll("the resumed job to be done", timeout: .seconds(60), daemon: daemon) { try sandbox.jobFiles("done").count == 1 }
                let after = try await HTTP.request(base.appending(path: "metrics"))
                #expect(MetricsEndpointTests.samples(in: after.body)[#"lineup_paused{scope="kind:statistics"}"#] == 0, "\(after.body)")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("lineupd --limit takes running and rate limits, and refuses what it cannot read, naming the form")
        func limitOption() async throws {
            try await withSandbox { sandbox in
                let bad = try await sandbox.run(Binaries.lineupd, sandbox.daemonLocationArguments + ["--limit", "statistics=2"])
                #expect(bad.termination == .exited(64), "\(bad.standardError)")
                #expect(bad.standardError.contains("expected kind:NAME=running:N,rate:N/SECONDS"), "\(bad.standardError)")
                let daemon = try await sandbox.startDaemon([
                    "--http-address", "127.0.0.1:0", "--limit", "kind:statistics=running:3,rate:7/30",
                ])
                let base = try await sandbox.httpEndpoint(of: daemon)
                let status = try await HTTP.request(base.appending(path: "api/status"))
                #expect(status.body.contains(#""maxRunning":3,"period":30,"rate":7"#), "\(status.body)")
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("pause and resume with --database act on the table, and lineup status --database shows it",
              .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
        func pauseAndResumeOnADatabase() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                var result = try await sandbox.lineup(["pause", "--queue", "imports", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(result.standardOutput.contains("queue:imports: paused in "), "\(result.standardOutput)")
                #expect(try server.psql("SELECT scope, name FROM lineup_paused", database: database) == "queue|imports")
                result = try await sandbox.lineup(["status", "--database", url])
                #expect(result.standardOutput.contains("paused: queue:imports"), "\(result.standardOutput)")
                result = try await sandbox.lineup(["resume", "--queue", "imports", "--database", url])
                #expect(result.standardOutput.contains("queue:imports: resumed"), "\(result.standardOutput)")
                #expect(try server.psql("SELECT count(*) FROM lineup_paused", database: database) == "0")
            }
        }
    }
}
