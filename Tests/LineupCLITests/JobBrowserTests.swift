import Foundation
import LineupSpool
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension DaemonTests {
    /// The dashboard's job browser (`GET /api/jobs`, `POST /api/jobs/bulk`, `/api/throughput`,
    /// `/api/daemons`) against a real `lineupd` on a spool.
    @Suite("Job browser")
    struct JobBrowserTests {
        static let token = "a-token-for-the-job-browser-0123"
        var bearer: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

        func startDaemon(_ sandbox: Sandbox) async throws -> (ChildProcess, URL) {
            let file = sandbox.root.appending(path: "token")
            try Data("\(Self.token)\n".utf8).write(to: file)
            let daemon = try await sandbox.startDaemon(["--http-address", "127.0.0.1:0", "--flush-interval", "0.2", "--http-token-file", file.path])
            return (daemon, try await sandbox.httpEndpoint(of: daemon))
        }

        /// `GET base/api/jobs?fields`, parsed.
        func page(_ base: URL, _ fields: [String: String]) async throws -> [String: Any] {
            var components = try #require(URLComponents(url: base.appending(path: "api/jobs"), resolvingAgainstBaseURL: false))
            components.queryItems = fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            // `+` in a cursor or a time must reach the server as itself.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            let answer = try await HTTP.request(try #require(components.url))
            try #require(answer.status == 200, "\(answer.status) \(answer.body)")
            return try DashboardTests.object(answer.body)
        }

        func names(_ page: [String: Any]) -> [String] {
            ((page["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        }

        /// A claim, as a daemon draws it: twelve hexadecimal digits.
        static func claim(_ number: Int) -> String {
            let hex = String(number, radix: 16)
            return String(repeating: "0", count: 12 - hex.count) + hex
        }

        /// Writes a settled job and its report straight into `done/` or `failed/`, as a daemon
        /// leaves them.
        static func writeSettled(_ directory: URL, name: String, number: Int, kind: String, failed: Bool, finishedAt: Date) throws {
            let stem = "\(name).c\(claim(number))"
            try Data(#"{"kind": "\#(kind)", "id": "id-\#(name)"}"#.utf8).write(to: directory.appending(path: "\(stem).job.json"))
            let report: Data
            if failed {
                report = try JobFailureReport(
                    name: name, id: "id-\(name)", kind: kind, reason: "broken", attempts: 1, interruptions: 0, retryable: false,
                    startedAt: finishedAt.addingTimeInterval(-2), finishedAt: finishedAt
                ).encoded()
            } else {
                report = try JobResultReport(
                    name: name, id: "id-\(name)", kind: kind, attempts: 1, startedAt: finishedAt.addingTimeInterval(-Double(number % 5 + 1)),
                    finishedAt: finishedAt
                ).encoded()
            }
            try report.write(to: directory.appending(path: "\(stem).\(failed ? "error" : "result").json"))
        }

        @Test("a page of 100,000 done jobs opens only its own files; the kind filter is bounded and goes on from its cursor")
        func pagingOverALargeSpool() async throws {
            try await withSandbox { sandbox in
                let done = sandbox.spool.appending(path: "done")
                let failed = sandbox.spool.appending(path: "failed")
                for directory in [done, failed] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
                // 100,000 done jobs: the newest 150 real files with their reports, the rest named
                // pipes. Opening a pipe for reading blocks until a writer comes, and none ever
                // does: a listing that read one file more than its page needs would never answer.
                let total = 100_000
                let real = 150
                let now = Date()
                for number in 1...total {
                    let name = String(format: "job-%06d", number)
                    if number > total - real {
                        try Self.writeSettled(done, name: name, number: number, kind: number.isMultiple(of: 2) ? "beta" : "alpha", failed: false, finishedAt: now)
                    } else {
                        let path = done.appending(path: "\(name).c\(Self.claim(number)).job.json").path
                        try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path): \(errno)")
                    }
                }
                // 3,000 failed jobs of kind alpha, to filter on a kind that none has.
                for number in 1...3_000 {
                    try Self.writeSettled(failed, name: String(format: "broken-%05d", number), number: number, kind: "alpha", failed: true, finishedAt: now)
                }
                let (daemon, base) = try await startDaemon(sandbox)

                let first = try await page(base, ["state": "done", "limit": "50"])
                #expect(names(first) == (0..<50).map { String(format: "job-%06d", total - $0) })
                #expect(first["source"] as? String == "spool")
                // One report and one stat a job, nothing else.
                #expect(first["examined"] as? Int == 100, "\(first["examined"] ?? "?")")
                let cursor = try #require(first["next"] as? String)
                let second = try await page(base, ["state": "done", "limit": "50", "after": cursor])
                #expect(names(second) == (50..<100).map { String(format: "job-%06d", total - $0) })
                let row = try #require((second["jobs"] as? [[String: Any]])?.first)
                #expect(row["kind"] as? String == "beta" && row["id"] as? String == "id-job-099950" && row["state"] as? String == "done")
                #expect(row["finishedAt"] != nil && row["startedAt"] != nil && row["enqueuedAt"] != nil)

                // A kind that only the real files have: found among them, no pipe opened.
                let betas = try await page(base, ["state": "done", "kind": "beta", "limit": "50"])
                #expect(names(betas).count == 50 && names(betas).allSatisfy { Int($0.dropFirst(4))!.isMultiple(of: 2) })
                // Search by id (read from the report) and by name (no read).
                let byID = try await page(base, ["state": "done", "q": "id-job-099990", "limit": "1"])
                #expect(names(byID) == ["job-099990"])
                let byName = try await page(base, ["q": "job-0999", "limit": "3"])
                #expect(names(byName) == ["job-099999", "job-099998", "job-099997"])

                // A kind that no failed job has: each page reads at most its budget of files and
                // says where to go on; the pages together read each file once.
                var cursorOfKind: String?
                var pages = 0
                var examined = 0
                repeat {
                    var fields = ["state": "failed", "kind": "beta"]
                    fields["after"] = cursorOfKind
                    let answer = try await page(base, fields)
                    #expect(names(answer).isEmpty)
                    let cost = try #require(answer["examined"] as? Int)
                    #expect(cost <= 2_000)
                    examined += cost
                    cursorOfKind = answer["next"] as? String
                    pages += 1
                } while cursorOfKind != nil && pages < 10
                #expect(pages == 2 && examined == 3_000, "\(pages) pages, \(examined) files")

                // Every state, newest first within each: no queued or running job, then done.
                let all = try await page(base, ["limit": "2"])
                #expect(names(all) == ["job-100000", "job-099999"])
                let status = try DashboardTests.object(try await HTTP.request(base.appending(path: "api/status")).body)
                #expect((status["counts"] as? [String: Int])?["done"] == total)

                let bad = try await HTTP.request(base.appending(path: "api/jobs").appending(queryItems: [URLQueryItem(name: "after", value: "nowhere")]))
                #expect(bad.status == 400, "\(bad.body)")
                let badState = try await HTTP.request(base.appending(path: "api/jobs").appending(queryItems: [URLQueryItem(name: "state", value: "lost")]))
                #expect(badState.status == 400, "\(badState.body)")
                #expect(daemon.isRunning)
            }
        }

        @Test("filters by state, kind, queue and time; bulk cancel, retry and discard of a filtered set need the token")
        func filtersAndBulkActions() async throws {
            try await withSandbox { sandbox in
                let (daemon, base) = try await startDaemon(sandbox)
                // Jobs that wait an hour: queued until cancelled.
                for id in ["wait-a", "wait-b", "wait-c"] {
                    let result = try await sandbox.lineup(["enqueue", "export-csv", "entity=JournalEntry", "output=\(id).csv", "--id", id, "--in", "1h", "--spool", sandbox.spool.path])
                    #expect(result.termination == .exited(0), "\(result.standardError)")
                }
                let other = try await sandbox.lineup(["enqueue", "statistics", "output=later.json", "--id", "stats-later", "--in", "1h", "--spool", sandbox.spool.path])
                #expect(other.termination == .exited(0), "\(other.standardError)")
                try await sandbox.enqueueImport(id: "missing-one", input: "missing-one.xml")
                try await sandbox.poll("the import to fail", daemon: daemon) { try sandbox.jobFiles("failed").count == 1 }

                let queued = try await page(base, ["state": "queued"])
                #expect(Set(((queued["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }) == ["wait-a", "wait-b", "wait-c", "stats-later"])
                let exports = try await page(base, ["state": "queued,failed", "kind": "export-csv"])
                #expect(((exports["jobs"] as? [[String: Any]]) ?? []).allSatisfy { $0["kind"] as? String == "export-csv" && $0["queue"] == nil })
                #expect(names(exports).count == 3)
                #expect(names(try await page(base, ["queue": "default"])).count == 5)
                let noQueue = try await HTTP.request(base.appending(path: "api/jobs").appending(queryItems: [URLQueryItem(name: "queue", value: "nope")]))
                #expect(noQueue.status == 400)
                let future = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600))
                let past = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3_600))
                #expect(names(try await page(base, ["finishedAfter": future])).isEmpty)
                #expect(names(try await page(base, ["finishedAfter": past])).count == 1, "only the failed job has finished")
                #expect(names(try await page(base, ["enqueuedAfter": past])).count == 5)
                #expect(names(try await page(base, ["enqueuedBefore": past])).isEmpty)
                let failedRow = try #require((try await page(base, ["state": "failed"])["jobs"] as? [[String: Any]])?.first)
                #expect(failedRow["id"] as? String == "missing-one" && (failedRow["reason"] as? String)?.isEmpty == false)

                let bulk = base.appending(path: "api/jobs/bulk")
                let cancelExports = Data(#"{"action": "cancel", "kind": "export-csv"}"#.utf8)
                #expect(try await HTTP.request(bulk, method: "POST", body: cancelExports).status == 401)
                #expect(try await HTTP.request(bulk, method: "POST", headers: ["Authorization": "Bearer not-the-token-at-all"], body: cancelExports).status == 403)
                #expect(try await HTTP.request(bulk).status == 405)
                #expect(try sandbox.jobFiles("new").count == 4, "a refused request cancels nothing")
                let badAction = try await HTTP.request(bulk, method: "POST", headers: bearer, body: Data(#"{"action": "explode"}"#.utf8))
                #expect(badAction.status == 400)

                let cancelled = try DashboardTests.object(try await HTTP.request(bulk, method: "POST", headers: bearer, body: cancelExports).body)
                #expect(cancelled["acted"] as? Int == 3 && cancelled["skipped"] as? Int == 0, "\(cancelled)")
                #expect(try sandbox.jobFiles("new").count == 1 && sandbox.jobFiles("failed").count == 4)
                let reasons = ((try await page(base, ["state": "failed", "kind": "export-csv"])["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["reason"] as? String }
                #expect(reasons == Array(repeating: "cancelled by an operator", count: 3))

                // Retry what the search selects: the cancelled exports (their ids, read from their reports), not the failed import.
                let retried = try DashboardTests.object(
                    try await HTTP.request(bulk, method: "POST", headers: bearer, body: Data(#"{"action": "retry", "state": "failed", "q": "wait-", "kind": "export-csv", "enqueuedAfter": "\#(past)"}"#.utf8)).body)
                #expect(retried["acted"] as? Int == 3, "\(retried)")
                // Queued again, and still waiting for the `notBefore` time their files carry: a daemon
                // that claims one meanwhile (a retried file's name says it is due) gives it back.
                try await sandbox.poll("the retried jobs to wait in new/", daemon: daemon) {
                    try sandbox.jobFiles("new").count == 4 && sandbox.jobFiles("failed").count == 1 && sandbox.jobFiles("active").isEmpty
                }

                let discarded = try DashboardTests.object(
                    try await HTTP.request(bulk, method: "POST", headers: bearer, body: Data(#"{"action": "discard", "state": "failed"}"#.utf8)).body)
                #expect(discarded["acted"] as? Int == 1, "\(discarded)")
                #expect(try sandbox.fileNames("failed").isEmpty, "the job file and its report are gone")

                // The chart: no job has finished (the Chromium test draws done ones).
                let throughput = try DashboardTests.object(try await HTTP.request(base.appending(path: "api/throughput")).body)
                #expect((throughput["kinds"] as? [Any])?.isEmpty == true && throughput["truncated"] as? Bool == false, "\(throughput)")
                let daemons = try DashboardTests.object(try await HTTP.request(base.appending(path: "api/daemons")).body)
                #expect(daemons["source"] as? String == "spool" && daemons["daemons"] == nil)
                #expect(daemon.isRunning)
            }
        }
    }
}
