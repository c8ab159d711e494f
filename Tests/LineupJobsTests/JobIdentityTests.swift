import Foundation
import LineupJobs
import LineupSpool
import Testing

/// Jobs that share a name each run to completion exactly once, and a job's failed attempts
/// count across restarts.
@Suite struct JobIdentityTests {
    /// Writes a hand-named job file into `new/` through `tmp/`, as a producer other than
    /// `lineup enqueue` does (a nightly cron job, a person retrying a failed job).
    func dropJob(named name: String, _ json: String, into harness: DaemonHarness) throws {
        let temporary = harness.spool.root.appending(path: "tmp/\(name).job.json")
        try Data(json.utf8).write(to: temporary)
        try FileManager.default.moveItem(
            at: temporary, to: harness.spool.directory(.queued).appending(path: "\(name).job.json"))
    }

    @Test func aJobWithTheNameOfARunningJobRunsBesideItAndBothAreAcknowledged() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try dropJob(named: "nightly", #"{"kind": "slow"}"#, into: harness)
        try await events.started("nightly")
        #expect(await harness.running.opened())

        try dropJob(named: "nightly", #"{"kind": "insert-rows", "count": 3}"#, into: harness)
        try await events.finished("nightly")
        var summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == ["nightly"])
        #expect(try harness.rowsOnDisk() == 3)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 1, done: 1, failed: 0))

        harness.latch.open()
        _ = try await events.next {
            if case let .jobFinished(info) = $0 { return info.kind == "slow" }
            return false
        }
        summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == ["nightly"])
        #expect(try harness.rowsOnDisk() == 4)
        let done = try harness.spool.entries(.done)
        #expect(done.map(\.name) == ["nightly", "nightly"])
        #expect(Set(done.map(\.claim)).count == 2)
        #expect(Set(try done.map { try harness.spool.resultReport(for: $0).kind }) == ["slow", "insert-rows"])
        try await harness.stop(run)
        await events.drain()
        #expect(!events.seen.contains { if case .jobReleased = $0 { true } else { false } })
    }

    @Test func aNameReusedAfterItsJobWasDoneOrFailedRunsAgain() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try dropJob(named: "nightly", #"{"kind": "insert-rows", "count": 1}"#, into: harness)
        _ = try await events.acknowledgedAfterFlush("nightly", harness)

        try dropJob(named: "nightly", #"{"kind": "fail-n-times", "failures": 1, "retryable": false}"#, into: harness)
        _ = try await events.failed("nightly")

        try dropJob(named: "nightly", #"{"kind": "insert-rows", "count": 2}"#, into: harness)
        try await events.next { if case .jobFinished = $0 { true } else { false } }
        #expect(try await harness.daemon.flush().acknowledged == ["nightly"])
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 2, failed: 1))
        #expect(try harness.rowsOnDisk() == 3)
        let failed = try #require(try harness.spool.entries(.failed).first)
        #expect(try harness.spool.failureReport(for: failed).reason.hasSuffix("(job file nightly.job.json)"))
        try await harness.stop(run)
    }

    /// A job that failed once and was returned to `new/` by a restart goes on from its second
    /// attempt: `maxAttempts` bounds the job, not one run of the daemon.
    @Test func failedAttemptsCountAcrossARestart() async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-jobs-tests-\(UUID().uuidString)")
        // Full jitter: a jitter of 1 waits the whole backoff, so the retry is still pending at the stop.
        let slowRetry = try DaemonHarness(root: root, hooks: JobDaemon.Hooks(randomJitter: { 1 })) {
            $0.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(3600), maxDelay: .seconds(3600))
        }
        defer { slowRetry.removeFiles() }
        var (events, run) = try await slowRetry.start()
        let entry = try slowRetry.enqueue(["kind": "fail-n-times", "failures": 10])
        _ = try await events.next { if case .retryScheduled = $0 { true } else { false } }
        try await slowRetry.stop(run)
        #expect(try fileNames(in: slowRetry.spool, .queued) == ["\(entry.name).a1.job.json"])

        let restarted = try DaemonHarness(root: root)
        defer { restarted.removeFiles() }
        (events, run) = try await restarted.start()
        let report = try await events.failed(entry.name)
        #expect(report.attempts == 3)
        #expect(report.reason.hasPrefix("fail-n-times failed: planned failure of attempt 3 (job file "))
        let starts = events.seen.compactMap { event -> Int? in
            if case let .jobStarted(info) = event { return info.attempt }
            return nil
        }
        #expect(starts == [2, 3])
        try await restarted.stop(run)
    }

    /// A job whose attempts were all used up before a restart (or whose `maxAttempts` was
    /// lowered since) fails at once rather than running again.
    @Test func aJobWithItsAttemptsUsedUpFailsWithoutRunning() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        try dropJob(named: "tired.a3", #"{"kind": "insert-rows", "count": 1}"#, into: harness)
        var (events, run) = try await harness.start()
        let report = try await events.failed("tired")
        #expect(report.reason == "job failed: 3 attempts failed already, and maxAttempts is 3 (job file tired.job.json)")
        #expect(!events.seen.contains { if case .jobStarted = $0 { true } else { false } })
        #expect(try harness.rowsOnDisk() == 0)
        try await harness.stop(run)
    }
}

func fileNames(in spool: SpoolDirectory, _ state: JobState) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: spool.directory(state).path).sorted()
}

extension EventLog {
    /// Waits until the job named `name` finished, flushes, and returns its acknowledgement.
    mutating func acknowledgedAfterFlush(_ name: String, _ harness: DaemonHarness) async throws -> JobResultReport {
        try await finished(name)
        try await harness.daemon.flush()
        return try await acknowledged(name)
    }
}
