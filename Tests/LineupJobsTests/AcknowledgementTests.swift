import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// Durability before acknowledgement: a job is reported done only after the flush that
/// carried its changes committed.
@Suite(.daemonTestTimeLimit) struct AcknowledgementTests {
    @Test func rowsReachDiskAndTheFileReachesDoneOnlyAtTheFlush() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 4, "id": "four-rows"])

        try await events.finished(entry.name)
        // Finished: in the main context, not on disk, not acknowledged.
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try harness.mainContextHasChanges())
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 1, done: 0, failed: 0))

        let summary = try await harness.daemon.flush()
        #expect(summary.reason == .request)
        #expect(summary.acknowledged == [entry.name])
        #expect(summary.rowsWritten == 4)
        #expect(try harness.rowsOnDisk() == 4)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 0))
        let report = try harness.resultReport(entry)
        #expect(report.id == "four-rows")
        #expect(report.kind == "insert-rows")
        #expect(report.attempts == 1)
        #expect(report.details["summary"] == "inserted 4 rows")
        #expect(report.details["counts"] == ["rows": 4])
        // The event carries the report that was written (dates are stored to the millisecond).
        #expect(try JobResultReport(data: try await events.acknowledged(entry.name).encoded()) == report)

        try await harness.stop(run)
    }

    @Test func oneFlushAcknowledgesEveryJobThatFinishedBeforeIt() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (1...3).map { try harness.enqueue(["kind": "insert-rows", "count": .integer($0)]) }
        for entry in entries {
            try await events.finished(entry.name)
        }
        let summary = try await harness.daemon.flush()
        #expect(Set(summary.acknowledged) == Set(entries.map(\.name)))
        #expect(summary.rowsWritten == 6)
        #expect(try harness.spool.counts().done == 3)

        // Nothing new: the next flush acknowledges nothing and writes nothing.
        let idle = try await harness.daemon.flush()
        #expect(idle.acknowledged == [])
        #expect(idle.rowsWritten == 0)
        try await harness.stop(run)
    }

    /// The report is written when the job finishes, in `tmp/` where it means nothing: until the
    /// flush, a crash re-runs the job rather than taking it as done.
    @Test func aFinishedJobsReportWaitsInTmpUntilTheFlushMovesItToDone() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "one-row"])
        try await events.finished(entry.name)
        let tmp = harness.configuration.spoolURL.appending(path: "tmp").path
        let running = try #require(try harness.spool.entries(.running).first)
        #expect(running.name == entry.name)
        let stem = running.fileName.dropLast(".job.json".count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == [".\(stem).result.json"])
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 1, done: 0, failed: 0))

        let summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == [entry.name])
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == [])
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 0))
        let report = try harness.resultReport(entry)
        #expect(report.id == "one-row")
        #expect(report.details["counts"] == ["rows": 1])
        try await harness.stop(run)
    }

    /// A flush runs beside claiming, not in its way: while one waits for the store, jobs are
    /// still claimed and started, and the jobs it carries count as awaiting the flush.
    @Test func aFlushWaitingForTheStoreDoesNotHoldUpClaiming() async throws {
        let latch = Latch()
        let harness = try DaemonHarness(latch: latch)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        // A job with a dependent: the daemon flushes as soon as it finishes.
        let dependency = try harness.enqueue(["kind": "slow", "id": "first"])
        #expect(await harness.running.opened())
        let dependent = try harness.enqueue(["kind": "insert-rows", "count": 1, "after": ["first"]])
        try await events.next {
            if case let .jobClaimed(info) = $0 { info.name == dependent.name } else { false }
        }
        // The writer's queue is held, as by a slow disk: that flush cannot finish.
        let disk = Latch()
        hold(try harness.container.writerContext, until: disk)
        latch.open()
        try await events.finished(dependency.name)

        let other = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.started(other.name)
        let status = try #require(await harness.daemon.status())
        #expect(status.awaitingFlush == 1)
        #expect(status.running.map(\.job.name) == [other.name])
        #expect(try harness.spool.counts().done == 0)

        disk.open()
        // In whatever order they come: the flush acknowledges the dependency, which lets the
        // dependent run; the other job's save into the main context goes through.
        var awaited: Set<String> = [
            "acknowledged \(dependency.name)", "finished \(dependent.name)", "finished \(other.name)",
        ]
        while !awaited.isEmpty {
            switch try await events.next({ _ in true }) {
            case let .jobAcknowledged(info, _): awaited.remove("acknowledged \(info.name)")
            case let .jobFinished(info): awaited.remove("finished \(info.name)")
            default: break
            }
        }
        let summary = try await harness.daemon.flush()
        #expect(Set(summary.acknowledged) == [dependent.name, other.name])
        #expect(try harness.rowsOnDisk() == 3)
        try await harness.stop(run)
    }

    /// A job whose file cannot be moved to `done/` holds back only itself: the other jobs of its
    /// flush are acknowledged, and it waits for the next flush to try again.
    @Test func aJobThatCannotBeFiledHoldsBackOnlyItself() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let vanished = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(vanished.name)
        let kept = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(kept.name)
        // Removed from active/ behind the daemon's back: the group's move stops at it.
        let claimed = try #require(try harness.spool.entries(.running).first { $0.name == vanished.name })
        try FileManager.default.removeItem(at: claimed.url)

        let summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == [kept.name])
        #expect(try harness.spool.entries(.done).map(\.name) == [kept.name])
        #expect(try harness.resultReport(kept).name == kept.name)
        #expect(await harness.daemon.status()?.awaitingFlush == 1)
        try await harness.stop(run)
    }

    /// Keeps `context`'s queue busy until `latch` opens (at most a minute), without waiting.
    func hold(_ context: ManagedObjectContext, until latch: Latch) {
        context.perform { _ = latch.wait(timeout: 60) }
    }

    @Test func flushIntervalAcknowledgesWithoutBeingAsked() async throws {
        let harness = try DaemonHarness { $0.flushInterval = .milliseconds(50) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 2])
        _ = try await events.acknowledged(entry.name)
        #expect(try harness.rowsOnDisk() == 2)
        let flushed = try await events.next {
            if case let .flushed(summary) = $0 { return summary.reason == .interval }
            return false
        }
        guard case .flushed = flushed else { return }
        try await harness.stop(run)
    }

    /// A flush that fails acknowledges nothing; the next flush carries the same changes.
    @Test func failedFlushLeavesJobsUnacknowledgedUntilAFlushSucceeds() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let relabel = try await harness.prepareConflictingFlush(&events)
        let writer = try harness.container.writerContext
        let error = await #expect(throws: StoreError.self) { try await harness.daemon.flush() }
        #expect(error?.code == .mergeConflict)
        try await events.next {
            if case .flushFailed(.request, _) = $0 { true } else { false }
        }
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 1, done: 1, failed: 0))
        let status = try #require(await harness.daemon.status())
        #expect(status.lastFlush?.succeeded == false)
        #expect(status.lastFlush?.error?.contains("mergeConflict") == true)
        #expect(status.consecutiveFlushFailures == 1)
        #expect(status.awaitingFlush == 1)

        // Once the conflict can be resolved, the next flush acknowledges the job.
        try harness.container.mainContext.mergePolicy = .mergeByPropertyObjectTrump
        let summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == [relabel.name])
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 2, failed: 0))
        #expect(await harness.daemon.status()?.consecutiveFlushFailures == 0)
        let rows = try writer.performAndWait {
            try writer.fetch(FetchRequest<TestRow>(includesPendingChanges: false)).map { ($0.label, $0.value) }
        }
        #expect(rows.count == 1)
        #expect(rows.first?.0 == "new")
        #expect(rows.first?.1 == 99)
        try await harness.stop(run)
    }

    @Test func statusFileShowsRunningJobsWithProgressAndTheLastFlush() async throws {
        let latch = Latch()
        let harness = try DaemonHarness(latch: latch)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try await harness.daemon.flush()
        let entry = try harness.enqueue(["kind": "slow", "id": "slowpoke"])
        #expect(await harness.running.opened())
        // The status file is rewritten after every flush.
        try await harness.daemon.flush()
        var status = try DaemonStatus(contentsOfSpoolAt: harness.configuration.spoolURL)
        #expect(status.pid == ProcessInfo.processInfo.processIdentifier)
        #expect(status.phase == .running)
        #expect(status.lastFlush?.succeeded == true)
        #expect(status.lastFlush?.reason == .request)
        let running = try #require(status.running.first)
        #expect(status.running.count == 1)
        #expect(running.job.name == entry.name)
        #expect(running.job.id == "slowpoke")
        #expect(running.job.kind == "slow")
        #expect(running.progress == JobProgress.Snapshot(completedUnitCount: 1, totalUnitCount: 4))

        latch.open()
        _ = try await events.finished(entry.name)
        try await harness.daemon.flush()
        status = try DaemonStatus(contentsOfSpoolAt: harness.configuration.spoolURL)
        #expect(status.running == [])
        #expect(status.lastFlush?.acknowledgedCount == 1)
        try await harness.stop(run)
        status = try DaemonStatus(contentsOfSpoolAt: harness.configuration.spoolURL)
        #expect(status.phase == .stopped)
    }
}
