import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// `flushRowLimit`: once jobs have saved more rows into the main context than the limit, the
/// daemon flushes them at once, through the same committer as every other flush, rather than at
/// the interval: a large import reaches the disk while it still runs.
@Suite(.daemonTestTimeLimit) struct RowLimitFlushTests {
    @Test func aRunningJobsSavedChunkReachesTheDiskOncePastTheLimit() async throws {
        // The interval is an hour and idle flushes are off: only the row limit can flush.
        let harness = try DaemonHarness { $0.flushRowLimit = 100 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "save-then-wait", "count": 150])
        #expect(await harness.running.opened(), "the job saved its chunk")
        let flushed = try await events.next { if case .flushed = $0 { true } else { false } }
        guard case let .flushed(summary) = flushed else { return }
        #expect(summary.reason == .rowLimit)
        #expect(summary.rowsWritten == 150)
        #expect(summary.acknowledged.isEmpty, "the job still runs: the flush carried its chunk, not its acknowledgement")
        #expect(try harness.rowsOnDisk() == 150)
        #expect(try harness.spool.counts().done == 0)

        harness.latch.open()
        try await events.finished(entry.name)
        try await harness.stop(run)
        await events.drain()
        #expect(try harness.spool.counts().done == 1)
        #expect(events.flushes.map(\.reason) == [.rowLimit, .shutdown])
    }

    /// 150 rows saved: a limit of 150 is not passed, and 0 is no limit at all.
    @Test(arguments: [150, 0]) func atTheLimitOrWithoutOneTheRowsWaitForTheInterval(limit: Int) async throws {
        let harness = try DaemonHarness { $0.flushRowLimit = limit }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try harness.enqueue(["kind": "save-then-wait", "count": 150])
        #expect(await harness.running.opened())
        try await Task.sleep(for: .milliseconds(300))
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try harness.mainContextHasChanges())
        harness.latch.open()
        try await harness.stop(run)
        await events.drain()
        #expect(events.flushes.map(\.reason) == [.shutdown])
        #expect(try harness.rowsOnDiskAfterStop() == 150)
    }
}
