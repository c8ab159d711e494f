import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// Per-job time limits: an attempt that overruns is cancelled and fails as timed out; a task
/// that does not stop fails its job for good, and nothing it does later reaches the store.
/// Serialized, as ShutdownTests are: each test holds a job thread in a slow job.
@Suite(.serialized, .daemonTestTimeLimit) struct TimeoutTests {
    @Test func attemptThatOverrunsIsCancelledAndFailsAsTimedOut() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let slow = try harness.enqueue(["kind": "slow", "timeout": 0.2, "maxAttempts": 1])
        let report = try await events.failed(slow.name)
        #expect(report.reason.contains("timed out after 0.2 s and was cancelled"), "\(report.reason)")
        #expect(report.reason.contains(slow.fileName), "the reason names the job file: \(report.reason)")
        #expect(report.retryable)
        // The daemon goes on: another job runs and is acknowledged.
        let next = try harness.enqueue(["kind": "insert-rows", "count": 3])
        try await events.finished(next.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(next.name)
        try await harness.stop(run)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
        // The slow job's row was rolled back: only the other job's rows are on disk.
        #expect(try harness.rowsOnDiskAfterStop() == 3)
    }

    @Test func timedOutAttemptIsRetriedAndTheNextAttemptMaySucceed() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        // Its second attempt returns at once: it must not race its own limit against this test
        // being scheduled (under ThreadSanitizer, beside other suites, that took over 0.3 s).
        let slow = try harness.enqueue(["kind": "slow", "slowAttempts": 1, "timeout": 0.3, "maxAttempts": 2])
        let retry = try await events.next { if case .retryScheduled = $0 { true } else { false } }
        guard case let .retryScheduled(info, _, reason) = retry else { preconditionFailure() }
        #expect(info.name == slow.name && reason.contains("timed out"), "\(retry)")
        try await events.finished(slow.name)
        _ = try await harness.daemon.flush()
        let done = try await events.acknowledged(slow.name)
        #expect(done.attempts == 2)
        try await harness.stop(run)
        #expect(try harness.rowsOnDiskAfterStop() == 1)
    }

    @Test func kindDefaultAppliesAndTheJobFileOverridesIt() async throws {
        let harness = try DaemonHarness {
            $0.timeoutByKind = ["slow": .milliseconds(200)]
            $0.timeout = .seconds(3600)
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let byKind = try harness.enqueue(["kind": "slow", "maxAttempts": 1])
        let report = try await events.failed(byKind.name)
        #expect(report.reason.contains("timed out after 0.2 s"), "\(report.reason)")
        // A job file's own, longer limit wins over the kind's: it runs until it is let go.
        let ownLimit = try harness.enqueue(["kind": "slow", "maxAttempts": 1, "timeout": 600])
        try await events.started(ownLimit.name)
        try await Task.sleep(for: .milliseconds(600))
        harness.latch.open()
        try await events.finished(ownLimit.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(ownLimit.name)
        // The daemon-wide limit applies to other kinds, and is far off here.
        let other = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(other.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(other.name)
        try await harness.stop(run)
    }

    /// A task that never checks for cancellation cannot be stopped: after the cancellation
    /// timeout its job fails for good, and the daemon runs on without that thread. When the
    /// task returns at last, its work is thrown away: a job is saved or timed out, never both.
    @Test func taskThatDoesNotStopFailsItsJobAndItsLateWorkIsDiscarded() async throws {
        let harness = try DaemonHarness { $0.cancellationTimeout = .milliseconds(200) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let stubborn = try harness.enqueue(["kind": "stubborn", "timeout": 0.2, "maxAttempts": 3])
        #expect(await harness.running.opened())
        let report = try await events.failed(stubborn.name)
        #expect(report.reason.contains("did not stop when cancelled"), "\(report.reason)")
        #expect(!report.retryable)
        #expect(report.attempts == 1, "not retried while its first attempt still runs")
        #expect(try harness.spool.entries(.failed).map(\.name) == [stubborn.name])

        let next = try harness.enqueue(["kind": "insert-rows", "count": 2])
        try await events.finished(next.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(next.name)
        // The stray task returns now; its row must not be saved, and the daemon stops cleanly.
        // No event tells when it has returned; a second is ample for a loop that polls every 5 ms.
        harness.latch.open()
        try await Task.sleep(for: .seconds(1))
        try await harness.stop(run)
        #expect(try harness.rowsOnDiskAfterStop() == 2)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
    }

    /// While a timed-out task still runs, the daemon cannot close the store under it: it stops
    /// with `jobsDidNotStop`, naming the job (which is in failed/ already).
    @Test func shutdownWithARunawayTaskLeavesTheStoreOpenAndSaysWhy() async throws {
        let harness = try DaemonHarness {
            $0.cancellationTimeout = .milliseconds(100)
            $0.gracePeriod = .milliseconds(50)
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let stubborn = try harness.enqueue(["kind": "stubborn", "timeout": 0.1])
        _ = try await events.failed(stubborn.name)
        harness.daemon.requestShutdown()
        let error = await #expect(throws: DaemonError.self) { try await run.value }
        #expect(error?.code == .jobsDidNotStop)
        #expect(error?.message.contains("timed out never stopped") == true, "\(String(describing: error))")
        #expect(error?.message.contains(stubborn.name) == true, "\(String(describing: error))")
        harness.latch.open()
    }

    /// Jobs whose limit falls about when they finish: each ends exactly once, done with its
    /// rows on disk or failed as timed out with none.
    @Test func jobFinishingAtItsDeadlineIsDoneOrTimedOutNeverBoth() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        var names: [String] = []
        for number in 0..<40 {
            let entry = try harness.enqueue([
                "kind": "insert-rows", "count": 400, "label": .string("job \(number)"), "timeout": 0.004, "maxAttempts": 1,
            ])
            names.append(entry.name)
        }
        for name in names {
            try await events.ended(name)
        }
        try await harness.stop(run)
        let done = try harness.spool.entries(.done).map(\.name)
        let failed = try harness.spool.entries(.failed)
        #expect(done.count + failed.count == names.count)
        for entry in failed {
            let reason = try harness.failureReport(entry).reason
            #expect(reason.contains("timed out"), "\(entry.name): \(reason)")
        }
        #expect(try harness.rowsOnDiskAfterStop() == done.count * 400)
    }
}
