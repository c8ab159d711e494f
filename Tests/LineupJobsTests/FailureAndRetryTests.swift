import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

@Suite(.daemonTestTimeLimit) struct FailureAndRetryTests {
    @Test func retryableFailureIsRetriedUntilItSucceeds() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "fail-n-times", "failures": 2, "maxAttempts": 3])
        try await events.finished(entry.name)
        let retries = events.seen.compactMap { event -> (Int, String)? in
            guard case let .retryScheduled(info, _, error) = event, info.name == entry.name else { return nil }
            return (info.attempt, error)
        }
        #expect(retries.map(\.0) == [1, 2])
        #expect(retries.first?.1 == "fail-n-times failed: planned failure of attempt 1 (job file \(entry.fileName))")
        try await harness.daemon.flush()
        let report = try harness.resultReport(entry)
        #expect(report.attempts == 3)
        #expect(report.details["summary"] == "succeeded on attempt 3")
        // Only the successful attempt's row reached the store.
        #expect(try harness.rowsOnDisk() == 1)
        try await harness.stop(run)
    }

    @Test func jobThatKeepsFailingGoesToFailedAfterItsLastAttempt() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "fail-n-times", "failures": 10, "maxAttempts": 3, "id": "flaky"])
        let report = try await events.failed(entry.name)
        #expect(report.attempts == 3)
        #expect(report.retryable)
        #expect(report.id == "flaky")
        #expect(report.kind == "fail-n-times")
        #expect(report.reason == "fail-n-times failed: planned failure of attempt 3 (job file \(entry.fileName))")
        #expect(try harness.failureReport(entry) == JobFailureReport(data: report.encoded()))
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 0, failed: 1))
        // Every failed attempt discarded its context.
        #expect(try !harness.mainContextHasChanges())
        try await harness.daemon.flush()
        #expect(try harness.rowsOnDisk() == 0)
        try await harness.stop(run)
    }

    @Test func nonRetryableFailureGoesToFailedAtOnce() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "fail-n-times", "failures": 1, "retryable": false, "maxAttempts": 5])
        let report = try await events.failed(entry.name)
        #expect(report.attempts == 1)
        #expect(!report.retryable)
        #expect(report.reason.hasPrefix("fail-n-times failed: planned failure of attempt 1 (job file "))
        #expect(!events.seen.contains { if case .retryScheduled = $0 { true } else { false } })
        #expect(try !harness.mainContextHasChanges())
        try await harness.stop(run)
    }

    @Test func backoffUsesTheJobFilesBaseDelayWithTheInjectedJitter() async throws {
        let harness = try DaemonHarness(hooks: JobDaemon.Hooks(randomJitter: { 0.5 })) {
            $0.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(100), maxDelay: .seconds(1000))
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "fail-n-times", "failures": 2, "baseDelay": 0.02])
        try await events.finished(entry.name)
        let delays = events.seen.compactMap { event -> Duration? in
            guard case let .retryScheduled(info, delay, _) = event, info.name == entry.name else { return nil }
            return delay
        }
        // Half (the jitter) of 20 ms, then of 40 ms.
        #expect(delays == [.milliseconds(10), .milliseconds(20)])
        try await harness.stop(run)
    }

    @Test func aFailingJobDoesNotDisturbOthers() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let bad = try harness.enqueue(["kind": "fail-n-times", "failures": 9, "maxAttempts": 2])
        let good = try harness.enqueue(["kind": "insert-rows", "count": 3])
        try await events.finished(good.name)
        _ = try await events.failed(bad.name)
        try await harness.daemon.flush()
        #expect(try harness.rowsOnDisk() == 3)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
        try await harness.stop(run)
    }

    /// A job that saved chunks into the main context and then failed for good: its report says
    /// how many row changes were kept (they reach the disk with the next flush, as the README
    /// says, and a re-run upserts them); the chunk it had not saved is gone.
    @Test func failedJobReportsTheRowsItsSavedChunksKept() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "save-then-fail", "count": 3])
        let report = try await events.failed(entry.name)
        #expect(report.keptRowChanges == 3)
        #expect(
            report.reason
                == "job failed: the second chunk is unreadable (before failing, its attempts had saved 3 row change(s) in chunks; they are kept and may be on disk, and a re-run of the job upserts them) (job file \(entry.fileName))"
        )
        #expect(try harness.failureReport(entry).keptRowChanges == 3)
        try await harness.daemon.flush()
        #expect(try harness.rowsOnDisk() == 3)
        try await harness.stop(run)
    }

    @Test func failedJobThatSavedNothingReportsNoKeptRows() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "fail-n-times", "failures": 1, "retryable": false])
        let report = try await events.failed(entry.name)
        #expect(report.keptRowChanges == 0)
        #expect(!report.reason.contains("kept"))
        try await harness.stop(run)
    }
}
