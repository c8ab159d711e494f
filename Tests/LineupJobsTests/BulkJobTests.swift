import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// Bulk files through the daemon: each line runs, retries, fails and is acknowledged as a job of
/// its own, and a restart never runs an acknowledged line again.
@Suite(.daemonTestTimeLimit) struct BulkJobTests {
    /// The outcomes in a bulk's results (`done/<stem>.results.jsonl`) by line number.
    func outcomes(in harness: DaemonHarness) throws -> [Int: [String]] {
        try entries(in: harness).mapValues { $0.map { $0["outcome"] as? String ?? "?" } }
    }

    /// The entries of a bulk's results by line number, each a JSON object.
    func entries(in harness: DaemonHarness) throws -> [Int: [[String: Any]]] {
        let results = try #require(
            try FileManager.default.contentsOfDirectory(atPath: harness.spool.directory(.done).path).first { $0.hasSuffix(".results.jsonl") })
        let text = try String(contentsOf: harness.spool.directory(.done).appending(path: results), encoding: .utf8)
        var entries: [Int: [[String: Any]]] = [:]
        for line in text.split(separator: "\n") {
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            entries[try #require(entry["line"] as? Int), default: []].append(entry)
        }
        return entries
    }

    @Test func eachLineRunsAsAJobAndABadLineFailsAlone() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        var lines = (0..<20).map { _ in Data(#"{"kind":"insert-rows","count":1}"#.utf8) }
        lines.append(Data(#"{"kind":"no-such-kind"}"#.utf8))
        lines.append(Data("{not json".utf8))
        lines.append(Data(#"{"kind":"fail-n-times","failures":1,"maxAttempts":3}"#.utf8))
        let bulk = try harness.spool.enqueueBulk(contents: Data(lines.joined(separator: Data("\n".utf8))))

        for number in 1...20 {
            try await events.finished(bulk.name + ".line\(number)")
        }
        try await events.finished(bulk.name + ".line23")
        let unknownKind = try await events.failed(bulk.name + ".line21")
        #expect(unknownKind.reason.contains("\(bulk.fileName):21") && unknownKind.reason.contains("no-such-kind"), "\(unknownKind.reason)")
        let notJSON = try await events.failed(bulk.name + ".line22")
        #expect(notJSON.reason.contains(".jobs.jsonl:22"), "\(notJSON.reason)")
        try await harness.daemon.flush()

        #expect(try harness.rowsOnDisk() == 21, "20 rows, and one from the retried job's successful attempt")
        let outcomes = try outcomes(in: harness)
        #expect(outcomes.count == 23)
        #expect((1...20).allSatisfy { outcomes[$0] == ["done"] })
        #expect(outcomes[21] == ["failed"] && outcomes[22] == ["failed"])
        #expect(outcomes[23] == ["attemptFailed", "done"])
        // Each outcome carries the job's report, as a job file's report says it.
        let report = try #require(try entries(in: harness)[1]?.first?["report"] as? [String: Any])
        #expect(report["kind"] as? String == "insert-rows" && report["name"] as? String == bulk.name + ".line1", "\(report)")
        let details = try #require(report["details"] as? [String: Any])
        #expect(details["summary"] as? String == "inserted 1 rows", "\(details)")
        let failure = try #require(try entries(in: harness)[21]?.first?["report"] as? [String: Any])
        #expect((failure["reason"] as? String)?.contains("no-such-kind") == true, "\(failure)")
        #expect(try harness.spool.entries(.failed).map(\.name).sorted() == [bulk.name + ".line21", bulk.name + ".line22"])
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 2))
        try await harness.stop(run)
    }

    @Test func aJobWaitingForABulkLineDoneInAnEarlierRunGoesOn() async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-bulk-after-\(UUID().uuidString)")
        let first = try DaemonHarness(root: root)
        defer { first.removeFiles() }
        var (events, run) = try await first.start()
        let bulk = try first.spool.enqueueBulk([try JobFile(kind: "insert-rows", id: "seed-rows", parameters: ["count": 2])])
        try await events.finished(bulk.name + ".line1")
        try await first.daemon.flush()
        try await first.stop(run)

        // A new daemon knows the bulk's line only from done/.
        let second = try DaemonHarness(root: root) { $0.dependencyWaitTimeout = .milliseconds(200) }
        defer { second.removeFiles() }
        (events, run) = try await second.start()
        let dependent = try second.enqueue(["kind": "insert-rows", "count": 1, "after": ["seed-rows"]])
        try await events.ended(dependent.name)
        #expect(try second.spool.counts().failed == 0, "\(events.seen)")
        try await second.daemon.flush()
        try await second.stop(run)
        #expect(try second.rowsOnDiskAfterStop() == 3)
    }

    /// Runs a bulk of two lines, `first` and a slow job, until the first has its outcome, then
    /// stops: the slow line is cancelled and released, and the bulk goes back to `new/`
    /// unfinished, the first line's outcome recorded in its ledger.
    func runTheFirstLineOfAnUnfinishedBulk(_ first: JobFile, in root: URL) async throws -> SpoolEntry {
        let harness = try DaemonHarness(root: root) { $0.gracePeriod = .milliseconds(100) }
        // Stopped, not removed, if the run throws: the caller goes on in `root`.
        defer { harness.daemon.requestShutdown() }
        var (events, run) = try await harness.start()
        let bulk = try harness.spool.enqueueBulk([first, try JobFile(kind: "slow")])
        try await events.ended(bulk.name + ".line1")
        #expect(await harness.running.opened(), "the slow line started")
        try await harness.daemon.flush()
        try await harness.stop(run)
        #expect(try harness.spool.entries(.queued).map(\.name) == [bulk.name])
        #expect(try harness.spool.entries(.done).isEmpty)
        return bulk
    }

    @Test func aJobWaitingForALineDoneInAnEarlierRunOfAnUnfinishedBulkGoesOn() async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-bulk-open-after-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let bulk = try await runTheFirstLineOfAnUnfinishedBulk(
            try JobFile(kind: "insert-rows", id: "seed-rows", parameters: ["count": 2]), in: root)

        // The new daemon claims the bulk again and runs its slow line, which holds it open: it
        // learns of the line done only from the bulk's ledger.
        let second = try DaemonHarness(root: root) { $0.dependencyWaitTimeout = .milliseconds(200) }
        defer { second.removeFiles() }
        var (events, run) = try await second.start()
        let dependent = try second.enqueue(["kind": "insert-rows", "count": 1, "after": ["seed-rows"]])
        try await events.ended(dependent.name)
        #expect(try second.spool.counts().failed == 0, "\(events.seen)")
        #expect(try second.spool.entries(.done).filter(\.isBulk).isEmpty, "the bulk is not finished")
        second.latch.open()
        try await events.finished(bulk.name + ".line2")
        try await second.daemon.flush()
        try await second.stop(run)
        #expect(try second.spool.entries(.done).map(\.name).sorted() == [bulk.name, dependent.name].sorted())
    }

    @Test func aJobWaitingForALineFailedInAnEarlierRunOfAnUnfinishedBulkFailsWithItsReason() async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-bulk-open-after-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let bulk = try await runTheFirstLineOfAnUnfinishedBulk(
            try JobFile(kind: "fail-n-times", id: "seed-rows", parameters: ["failures": 9, "retryable": false]), in: root)
        let spool = try SpoolDirectory(root: root.appending(path: "spool"), durability: .none)
        let failedLine = try #require(try spool.entries(.failed).first { $0.name == bulk.name + ".line1" })
        let lineFailure = try spool.failureReport(for: failedLine)

        let second = try DaemonHarness(root: root) { $0.dependencyWaitTimeout = .milliseconds(200) }
        defer { second.removeFiles() }
        var (events, run) = try await second.start()
        let dependent = try second.enqueue(["kind": "insert-rows", "count": 1, "after": ["seed-rows"]])
        let report = try await events.failed(dependent.name)
        // As for a job file that failed: the reason of the line's own error report.
        #expect(
            report.reason == "dependency failed: job seed-rows in `after` failed: \(lineFailure.reason) (job file \(dependent.fileName))",
            "\(report.reason)")
        #expect(try second.spool.entries(.done).filter(\.isBulk).isEmpty, "the bulk is not finished")
        second.latch.open()
        try await events.finished(bulk.name + ".line2")
        try await second.stop(run)
    }

    @Test func aRestartRunsOnlyTheLinesNotAcknowledged() async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-bulk-restart-\(UUID().uuidString)")
        // The slow line is still running at the stop: cancelled after a short grace.
        let first = try DaemonHarness(root: root) { $0.gracePeriod = .milliseconds(100) }
        defer { first.removeFiles() }
        var (events, run) = try await first.start()
        var jobs = [try JobFile(kind: "insert-rows", parameters: ["count": 1]), try JobFile(kind: "slow")]
        for _ in 0..<8 { jobs.append(try JobFile(kind: "insert-rows", parameters: ["count": 1])) }
        let bulk = try first.spool.enqueueBulk(jobs)
        try await events.finished(bulk.name + ".line1")
        #expect(await first.running.opened(), "the slow line started")
        try await first.daemon.flush()
        // The slow line is cancelled and released; the bulk goes back to new/ with it.
        try await first.stop(run)
        #expect(try first.spool.entries(.queued).map(\.name) == [bulk.name])
        #expect(try first.spool.entries(.queued).first?.interruptions == 0, "a shutdown is not an interruption")

        let second = try DaemonHarness(root: root)
        defer { second.removeFiles() }
        second.latch.open()
        (_, run) = try await second.start()
        // The lines that the first daemon did not acknowledge run now; which ones those are is
        // up to the scheduler, so the test waits for the bulk to be done.
        let deadline = Date().addingTimeInterval(30)
        while try second.spool.entries(.done).isEmpty, Date() < deadline {
            try await second.daemon.flush()
            try await Task.sleep(for: .milliseconds(20))
        }
        try await second.stop(run)
        #expect(try second.spool.entries(.done).map(\.name) == [bulk.name])

        #expect(try second.rowsOnDiskAfterStop() == 10, "each line's row once")
        let outcomes = try outcomes(in: second)
        #expect(outcomes.count == 10)
        #expect(outcomes.values.allSatisfy { $0 == ["done"] }, "no line acknowledged twice: \(outcomes)")
    }
}
