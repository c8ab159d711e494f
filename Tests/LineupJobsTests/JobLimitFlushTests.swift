import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// `flushJobLimit`: once that many finished jobs wait for their acknowledgement, the daemon
/// flushes at once rather than at the interval, so that under a steady backlog one group is
/// filed while the next one runs.
@Suite(.daemonTestTimeLimit) struct JobLimitFlushTests {
    @Test func finishedJobsAreAcknowledgedOnceTheyReachTheLimit() async throws {
        // The interval is an hour and idle flushes are off: only the job limit can flush.
        let harness = try DaemonHarness { $0.flushJobLimit = 3 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (1...3).map { _ in try harness.enqueue(["kind": "insert-rows", "count": 1]) }
        let flushed = try await events.next { if case .flushed = $0 { true } else { false } }
        guard case let .flushed(summary) = flushed else { return }
        #expect(summary.reason == .jobLimit)
        #expect(summary.acknowledged.sorted() == entries.map(\.name).sorted())
        #expect(try harness.spool.counts().done == 3)
        #expect(try harness.rowsOnDisk() == 3)
        try await harness.stop(run)
        await events.drain()
        #expect(events.flushes.map(\.reason) == [.jobLimit, .shutdown])
    }

    /// Three jobs finish: a limit of four is not reached, and 0 is no limit at all.
    @Test(arguments: [4, 0]) func belowTheLimitOrWithoutOneJobsWaitForTheInterval(limit: Int) async throws {
        let harness = try DaemonHarness { $0.flushJobLimit = limit }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (1...3).map { _ in try harness.enqueue(["kind": "insert-rows", "count": 1]) }
        for entry in entries {
            try await events.finished(entry.name)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try harness.spool.counts().done == 0)
        try await harness.stop(run)
        await events.drain()
        #expect(events.flushes.map(\.reason) == [.shutdown])
        #expect(try harness.spool.counts().done == 3)
    }

    /// While flushes fail, the interval paces the retries: the failed group is back among the
    /// jobs waiting, past the limit, and each completion must not try again at once.
    @Test func aFailingFlushIsNotRetriedAtEachCompletion() async throws {
        let harness = try DaemonHarness { $0.flushJobLimit = 2 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try await harness.prepareConflictingFlush(&events)
        // The second job waiting reaches the limit: that flush fails.
        let second = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(second.name)
        try await events.next {
            if case .flushFailed(.jobLimit, _) = $0 { true } else { false }
        }
        // A third is past it, with the failed group back among the jobs waiting.
        let third = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(third.name)
        try await Task.sleep(for: .milliseconds(300))
        let status = try #require(await harness.daemon.status())
        #expect(status.consecutiveFlushFailures == 1)
        #expect(status.awaitingFlush == 3)

        try harness.container.mainContext.mergePolicy = .mergeByPropertyObjectTrump
        let summary = try await harness.daemon.flush()
        #expect(summary.acknowledged.count == 3)
        try await harness.stop(run)
    }
}
