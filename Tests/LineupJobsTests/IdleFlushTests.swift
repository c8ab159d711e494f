import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// `flushesWhenIdle`: when the queue drains, the jobs waiting for a flush are acknowledged at
/// once, not up to a flush interval later; while jobs still run, acknowledgements wait and go
/// in groups.
@Suite(.daemonTestTimeLimit) struct IdleFlushTests {
    /// The flushes announced so far.
    func flushes(_ events: EventLog) -> [FlushSummary] {
        events.seen.compactMap { if case let .flushed(summary) = $0 { summary } else { nil } }
    }

    @Test func aJobIsAcknowledgedAsSoonAsTheQueueDrains() async throws {
        // The interval is an hour: only the idle flush can acknowledge the job.
        let harness = try DaemonHarness { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 3])
        _ = try await events.acknowledged(entry.name)
        // Announced after the acknowledgements it made.
        _ = try await events.next { if case .flushed = $0 { true } else { false } }
        #expect(flushes(events).map(\.reason) == [.idle])
        #expect(flushes(events).first?.acknowledged == [entry.name])
        #expect(try harness.rowsOnDisk() == 3)
        try await harness.stop(run)
    }

    @Test func whileAJobRunsTheFinishedOnesWaitAndGoTogether() async throws {
        let harness = try DaemonHarness { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let slow = try harness.enqueue(["kind": "slow"])
        #expect(await harness.running.opened(), "the slow job started")
        let quick = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(quick.name)
        // Not idle: the slow job runs. Nothing flushes in the meantime.
        try await Task.sleep(for: .milliseconds(300))
        #expect(flushes(events).isEmpty, "\(flushes(events))")
        #expect(try harness.spool.counts().done == 0)

        harness.latch.open()
        _ = try await events.acknowledged(slow.name)
        _ = try await events.acknowledged(quick.name)
        _ = try await events.next { if case .flushed = $0 { true } else { false } }
        let idle = flushes(events)
        #expect(idle.count == 1 && idle[0].reason == .idle, "\(idle)")
        #expect(Set(idle.first?.acknowledged ?? []) == [slow.name, quick.name], "both in one group")
        try await harness.stop(run)
    }

    @Test func offItWaitsForTheInterval() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(entry.name)
        try await Task.sleep(for: .milliseconds(300))
        #expect(flushes(events).isEmpty)
        #expect(try harness.spool.counts().done == 0)
        try await harness.stop(run)
    }
}

/// What the status tells the dashboard about flushes and throughput.
@Suite(.daemonTestTimeLimit) struct StatusFlushHistoryTests {
    @Test func theStatusKeepsTheFlushesThatDidSomethingTheRowsWaitingAndTheJobsPerMinute() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.enqueue(["kind": "insert-rows", "count": 3])
        try await events.finished(first.name)
        var status = try await unsavedRows(harness, 3)
        #expect(status.recentFlushes == [])

        _ = try await harness.daemon.flush()
        _ = try await harness.daemon.flush()  // nothing to write: not kept
        let second = try harness.enqueue(["kind": "insert-rows", "count": 2])
        try await events.finished(second.name)
        _ = try await harness.daemon.flush()
        status = try await unsavedRows(harness, 0)
        let flushes = try #require(status.recentFlushes)
        #expect(flushes.map(\.rowsWritten) == [2, 3], "newest first, the empty flush left out")
        #expect(flushes.allSatisfy { $0.duration > .zero && $0.acknowledgedCount == 1 })
        #expect(status.lastFlush?.rowsWritten == 2)
        #expect(flushes.allSatisfy { $0.acknowledged.isEmpty }, "the status file keeps counts, not the names of every job a flush carried")
        let perMinute = try #require(status.acknowledgedPerMinute)
        #expect(perMinute.count == 60)
        #expect(perMinute.reduce(0, +) == 2, "two jobs acknowledged within the last two minutes: \(perMinute.suffix(2))")
        try await harness.stop(run)
        _ = events
    }

    /// The status once it says the main context holds `rows` (it is asked at each status, and
    /// answers for the next one). Waited for up to a minute: beside three processes spinning on
    /// the cores, ten seconds were once not enough for the answer.
    func unsavedRows(_ harness: DaemonHarness, _ rows: Int) async throws -> DaemonStatus {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let status = try #require(await harness.daemon.status())
            if status.mainContextUnsavedRows == rows || ContinuousClock.now > deadline {
                #expect(status.mainContextUnsavedRows == rows, "the rows the next flush writes")
                return status
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
