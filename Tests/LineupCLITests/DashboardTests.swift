import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// The dashboard of `lineupd --http-address`: its page, its JSON API, its event stream and
    /// its actions, over loopback against a real daemon.
    @Suite("Dashboard")
    struct DashboardTests {
        static let token = "a-token-for-the-tests-0123456789"

        /// Starts `lineupd` with the dashboard and, unless `withToken` is false, a token file.
        func startDaemon(
            _ sandbox: Sandbox, address: String = "127.0.0.1:0", withToken: Bool = true
        ) async throws -> (ChildProcess, URL) {
            var arguments = ["--http-address", address, "--flush-interval", "0.2"]
            if withToken {
                let file = sandbox.root.appending(path: "token")
                try Data("\(Self.token)\n".utf8).write(to: file)
                arguments += ["--http-token-file", file.path]
            }
            let daemon = try await sandbox.startDaemon(arguments)
            return (daemon, try await sandbox.httpEndpoint(of: daemon))
        }

        /// A job that failed because its input is missing: its id is `id`.
        func failedImport(_ sandbox: Sandbox, id: String, daemon: ChildProcess) async throws {
            try await sandbox.enqueueImport(id: id, input: "\(id).xml")
            try await sandbox.poll("\(id) to fail", daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }
        }

        var bearer: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

        @Test("the page and its script come from the binary, and /api/status is what lineup status --json prints")
        func pageAndStatus() async throws {
            try await withSandbox { sandbox in
                _ = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input, as: "ok.xml")
                let (daemon, base) = try await startDaemon(sandbox)
                let page = try await HTTP.request(base)
                #expect(page.status == 200)
                #expect(page.header("Content-Type") == "text/html; charset=utf-8")
                #expect(page.body.contains(#"<script src="/dashboard.js""#))
                let script = try await HTTP.request(base.appending(path: "dashboard.js"))
                #expect(script.status == 200 && script.header("Content-Type")?.hasPrefix("text/javascript") == true)
                #expect(script.body.contains("new EventSource(\"/api/events\""))
                let style = try await HTTP.request(base.appending(path: "dashboard.css"))
                #expect(style.status == 200 && style.header("Content-Type")?.hasPrefix("text/css") == true)

                try await sandbox.enqueueImport(id: "ok", input: "ok.xml")
                try await failedImport(sandbox, id: "missing", daemon: daemon)
                try await sandbox.poll("ok to be done", daemon: daemon) { try sandbox.jobFiles("done").count == 1 }

                let api = try await HTTP.request(base.appending(path: "api/status"))
                #expect(api.status == 200 && api.header("Content-Type") == "application/json")
                let cli = try await sandbox.lineup(["status", "--json", "--spool", sandbox.spool.path])
                let served = try Self.object(api.body), printed = try Self.object(cli.standardOutput)
                #expect(Set(served.keys) == Set(printed.keys))
                #expect(served["counts"] as? [String: Int] == ["queued": 0, "running": 0, "done": 1, "failed": 1])
                #expect(served["counts"] as? [String: Int] == printed["counts"] as? [String: Int])
                let failures = try #require(served["recentFailures"] as? [[String: Any]])
                #expect(failures.map { $0["id"] as? String } == ["missing"])
                #expect((failures.first?["reason"] as? String)?.contains("missing.xml") == true)
                #expect(NSDictionary(dictionary: failures[0]) == NSDictionary(dictionary: (printed["recentFailures"] as? [[String: Any]])?.first ?? [:]))

                let job = try await HTTP.request(base.appending(path: "api/jobs/ok"))
                #expect(job.status == 200)
                let details = try #require(try JSONSerialization.jsonObject(with: Data(job.body.utf8)) as? [[String: Any]])
                #expect(details.count == 1 && details[0]["directory"] as? String == "done")
                #expect((details[0]["file"] as? String)?.contains(#""input":"ok.xml""#) == true)
                #expect((details[0]["result"] as? [String: Any])?["id"] as? String == "ok")
                #expect(details[0]["id"] as? String == "ok")
                let log = try #require(details[0]["log"] as? [[String: Any]])
                let messages = log.compactMap { $0["message"] as? String }
                #expect(messages.contains("job started") && messages.contains("job acknowledged"), "\(messages)")
                #expect(log.allSatisfy { ($0["metadata"] as? [String: String])?["job"] == nil }, "the job is the page's, not repeated")

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(60)) == .exited(0))
            }
        }

        @Test("retry needs the token: 401 without it, 403 with a wrong one, 405 for GET, 413 for a body; with it the job runs again")
        func retryWithTheToken() async throws {
            try await withSandbox { sandbox in
                let (daemon, base) = try await startDaemon(sandbox)
                try await failedImport(sandbox, id: "late", daemon: daemon)
                let retry = base.appending(path: "api/jobs/late/retry")

                let anonymous = try await HTTP.request(retry, method: "POST")
                #expect(anonymous.status == 401)
                #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                let wrong = try await HTTP.request(retry, method: "POST", headers: ["Authorization": "Bearer not-the-token-at-all"])
                #expect(wrong.status == 403)
                let basic = try await HTTP.request(retry, method: "POST", headers: ["Authorization": "Basic \(Self.token)"])
                #expect(basic.status == 401)
                let get = try await HTTP.request(retry)
                #expect(get.status == 405 && get.header("Allow") == "POST")
                let huge = try await HTTP.request(retry, method: "POST", headers: bearer, body: Data(repeating: 0x41, count: 64 * 1024))
                #expect(huge.status == 413)
                #expect(try sandbox.jobFiles("failed").count == 1, "nothing was retried by a refused request")

                _ = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input, as: "late.xml")
                let accepted = try await HTTP.request(retry, method: "POST", headers: bearer)
                #expect(accepted.status == 200, "\(accepted.body)")
                #expect(accepted.body.contains(#""queued":"new\/"#), "\(accepted.body)")
                try await sandbox.poll("the retried job to be done", daemon: daemon) {
                    try sandbox.jobFiles("done").count == 1 && sandbox.jobFiles("failed").isEmpty
                }
                let again = try await HTTP.request(retry, method: "POST", headers: bearer)
                #expect(again.status == 404, "no failed job left to retry: \(again.body)")
                #expect(daemon.isRunning)
            }
        }

        @Test("discard removes a failed job with its report; unknown ids are 404 and impossible ones 400; flush now answers")
        func discardAndBadInput() async throws {
            try await withSandbox { sandbox in
                let (daemon, base) = try await startDaemon(sandbox)
                try await failedImport(sandbox, id: "doomed", daemon: daemon)
                let discard = try await HTTP.request(base.appending(path: "api/jobs/doomed/discard"), method: "POST", headers: bearer)
                #expect(discard.status == 200, "\(discard.body)")
                #expect(try sandbox.fileNames("failed").isEmpty, "the job file and its error report are gone")
                let twice = try await HTTP.request(base.appending(path: "api/jobs/doomed/discard"), method: "POST", headers: bearer)
                #expect(twice.status == 404)

                for (path, status) in [
                    ("api/jobs/nobody", 404), ("api/jobs/a%2Fb", 400), ("api/jobs/%2E%2E", 400), ("api/jobs/a%00b", 400),
                    ("api/jobs/%C3%28", 400), ("api/jobs/" + String(repeating: "x", count: 300), 400),
                ] {
                    let answer = try await HTTP.request(try #require(URL(string: base.absoluteString + "/" + path)))
                    #expect(answer.status == status, "\(path): \(answer.status) \(answer.body)")
                    #expect(answer.body.contains("\"error\""), "\(path) says why: \(answer.body)")
                }
                #expect(try await HTTP.request(base.appending(path: "api/nothing")).status == 404)
                // Sent as it is: URLSession would escape the stray `%` itself.
                let raw = try EventStreamReader(port: try #require(base.port), path: "/api/jobs/%ZZ")
                try await raw.read(until: "the answer") { $0.contains("\r\n\r\n") && $0.contains("}") }
                #expect(raw.text.hasPrefix("HTTP/1.1 400"), "\(raw.text)")
                #expect(raw.text.contains("bad percent-encoding"))
                let postStatus = try await HTTP.request(base.appending(path: "api/status"), method: "POST", headers: bearer)
                #expect(postStatus.status == 405 && postStatus.header("Allow") == "GET")
                let delete = try await HTTP.request(base.appending(path: "api/jobs/doomed"), method: "DELETE", headers: bearer)
                #expect(delete.status == 405)

                let flush = try await HTTP.request(base.appending(path: "api/flush"), method: "POST", headers: bearer)
                #expect(flush.status == 200 && flush.body.contains(#""reason":"request""#), "\(flush.body)")
                #expect(daemon.isRunning, "bad requests leave the daemon running")
                let health = try await HTTP.request(base.appending(path: "health"))
                #expect(health.status == 200)
            }
        }

        @Test("/api/scheduled lists the jobs waiting for their time and the cron jobs")
        func scheduledAndRecurring() async throws {
            try await withSandbox { sandbox in
                let config = sandbox.root.appending(path: "lineupd.json")
                try Data(#"{"cron": [{"name": "nightly", "schedule": "0 3 * * *", "job": {"kind": "statistics"}}]}"#.utf8)
                    .write(to: config)
                let daemon = try await sandbox.startDaemon(["--config", config.path, "--http-address", "127.0.0.1:0"])
                let base = try await sandbox.httpEndpoint(of: daemon)
                let later = try await sandbox.lineup(["enqueue", "statistics", "--id", "later", "--in", "1h", "--spool", sandbox.spool.path])
                #expect(later.termination == .exited(0), "\(later.standardError)")
                let answer = try await HTTP.request(base.appending(path: "api/scheduled"))
                #expect(answer.status == 200)
                let object = try Self.object(answer.body)
                let scheduled = try #require(object["scheduled"] as? [[String: Any]])
                #expect(scheduled.map { $0["id"] as? String } == ["later"])
                #expect(scheduled.first?["kind"] as? String == "statistics")
                let recurring = try #require(object["recurring"] as? [[String: Any]])
                #expect(recurring.map { $0["name"] as? String } == ["nightly"])
                #expect(recurring.first?["schedule"] as? String == "0 3 * * *")
                #expect(recurring.first?["lastFireTime"] is String)
            }
        }

        @Test("the statistics picture is listed and served from the output directory, and nothing else is")
        func pictures() async throws {
            try await withSandbox { sandbox in
                let (daemon, base) = try await startDaemon(sandbox)
                let enqueued = try await sandbox.lineup(["enqueue", "statistics", "output=stats.json", "--spool", sandbox.spool.path])
                #expect(enqueued.termination == .exited(0), "\(enqueued.standardError)")
                try await sandbox.poll("the statistics to be done", daemon: daemon) { try sandbox.jobFiles("done").count == 1 }
                try Data("TOP-SECRET-CONTENT".utf8).write(to: sandbox.root.appending(path: "secret.svg"))

                let listed = try await HTTP.request(base.appending(path: "api/pictures"))
                let pictures = try #require(try JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [[String: String]])
                #expect(pictures.map { $0["name"] } == ["stats.svg"])
                let picture = try await HTTP.request(base.appending(path: "pictures/stats.svg"))
                #expect(picture.status == 200)
                #expect(picture.header("Content-Type") == "image/svg+xml")
                #expect(picture.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
                #expect(picture.body.hasPrefix("<?xml") && picture.body.contains("Surf statistics"))
                for (path, status) in [
                    ("pictures/..%2Fsecret.svg", 400), ("pictures/stats.json", 400), ("pictures/.hidden.svg", 400),
                    ("pictures/none.svg", 404),
                ] {
                    let answer = try await HTTP.request(try #require(URL(string: base.absoluteString + "/" + path)))
                    #expect(answer.status == status, "\(path): \(answer.status) \(answer.body)")
                    #expect(!answer.body.contains("TOP-SECRET-CONTENT"))
                }
            }
        }

        @Test("without a token file the actions are off (403) and reading still works")
        func actionsOffWithoutAToken() async throws {
            try await withSandbox { sandbox in
                let (_, base) = try await startDaemon(sandbox, withToken: false)
                let flush = try await HTTP.request(base.appending(path: "api/flush"), method: "POST", headers: bearer)
                #expect(flush.status == 403)
                #expect(flush.body.contains("--http-token-file"))
                #expect(try await HTTP.request(base.appending(path: "api/status")).status == 200)
            }
        }

        @Test("bound beyond loopback, reading needs the token too (a header, or ?token= for the event stream)")
        func readingBeyondLoopback() async throws {
            try await withSandbox { sandbox in
                let (_, base) = try await startDaemon(sandbox, address: "0.0.0.0:0")
                #expect(try await HTTP.request(base.appending(path: "api/status")).status == 401)
                #expect(try await HTTP.request(base.appending(path: "api/status"), headers: bearer).status == 200)
                #expect(try await HTTP.request(base.appending(path: "api/failed"), headers: ["Authorization": "Bearer wrong"]).status == 403)
                let stream = try EventStreamReader(port: try #require(base.port), path: "/api/events?token=\(Self.token)")
                try await stream.read(until: "a status event") { $0.contains("event: status") }
                #expect(stream.text.hasPrefix("HTTP/1.1 200"))
            }
        }

        @Test("the event stream sends status and the daemon's events as they happen, and ends when the daemon stops")
        func eventStream() async throws {
            try await withSandbox { sandbox in
                _ = try BuoyFixtures.copySample(BuoyFixtures.sosSample, into: sandbox.input, as: "live.xml")
                let (daemon, base) = try await startDaemon(sandbox)
                let stream = try EventStreamReader(port: try #require(base.port), path: "/api/events")
                try await stream.read(until: "the first status event") { $0.contains("event: status") }
                #expect(stream.text.contains("Content-Type: text/event-stream"))

                try await sandbox.enqueueImport(id: "live", input: "live.xml")
                // The flush is announced after the acknowledgements it made.
                try await stream.read(until: "the job's acknowledgement and its flush") {
                    $0.contains("event: jobAcknowledged") && $0.contains(#""id":"live""#) && $0.contains("event: flushed")
                }
                #expect(stream.text.contains("event: jobStarted"))

                // An open stream does not hold the daemon up: it ends with the daemon.
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(30)) == .exited(0))
                let closed = try await stream.read(until: "the end of the stream") { _ in false }
                #expect(!closed)
                #expect(stream.text.contains("event: stopped"))
            }
        }

        @Test("a token file that is missing or too short stops lineupd with status 78, naming it")
        func badTokenFile() async throws {
            try await withSandbox { sandbox in
                let short = sandbox.root.appending(path: "short-token")
                try Data("abc\n".utf8).write(to: short)
                for file in [short.path, sandbox.root.appending(path: "no-such-token").path] {
                    let result = try await sandbox.run(
                        Binaries.lineupd, sandbox.daemonLocationArguments + ["--http-address", "127.0.0.1:0", "--http-token-file", file])
                    #expect(result.termination == .exited(78), "\(result.standardError)")
                    #expect(result.standardError.contains(file), "\(result.standardError)")
                }
            }
        }

        static func object(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
    }
}
