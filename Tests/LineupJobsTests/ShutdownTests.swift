import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// Serialized: each test blocks a job thread of the global pool (a slow job), and several at
/// once would wait for Dispatch to grow its pool.
@Suite(.serialized, .daemonTestTimeLimit) struct ShutdownTests {
    @Test func runningJobMayFinishWithinTheGracePeriodAndIsAcknowledged() async throws {
        let harness = try DaemonHarness { $0.gracePeriod = .seconds(60) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "slow"])
        #expect(await harness.running.opened())
        harness.daemon.requestShutdown()
        try await events.next { if case .stopping = $0 { true } else { false } }
        harness.latch.open()
        _ = try await events.acknowledged(entry.name)
        try await run.value
        await events.drain()
        guard case .stopped = try #require(events.seen.last) else {
            Issue.record("the last event is not .stopped: \(events.seen)")
            return
        }
        // The WAL was checkpointed into the database file and truncated.
        let wal = harness.configuration.storeURL.path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 0))
        #expect(try harness.rowsOnDiskAfterStop() == 1)
    }

    @Test func jobStillRunningAfterTheGracePeriodIsCancelledAndReturnedToNew() async throws {
        let harness = try DaemonHarness { $0.gracePeriod = .milliseconds(20) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "slow"])
        #expect(await harness.running.opened())
        try await harness.stop(run)
        await events.drain()
        #expect(events.seen.contains { if case let .jobReleased(info) = $0 { info.name == entry.name } else { false } })
        #expect(!events.seen.contains { if case .jobFailed = $0 { true } else { false } })
        // Back in new/ under its own name: no interruption counted, nothing on disk.
        #expect(try harness.spool.entries(.queued).map(\.fileName) == [entry.fileName])
        #expect(try harness.spool.counts() == JobCounts(queued: 1, running: 0, done: 0, failed: 0))
        #expect(try harness.rowsOnDiskAfterStop() == 0)
    }

    /// A task that never checks for cancellation: after the grace period and the cancellation
    /// timeout the daemon stops with a distinct error, leaves the job in `active/` (its operation
    /// still runs) and does not close the store under it; the next start recovers the job.
    @Test func jobThatIgnoresCancellationStaysInActiveAndTheStoreStaysOpen() async throws {
        let harness = try DaemonHarness {
            $0.gracePeriod = .milliseconds(50)
            $0.cancellationTimeout = .milliseconds(100)
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let finished = try harness.enqueue(["kind": "insert-rows", "count": 2])
        try await events.finished(finished.name)
        let entry = try harness.enqueue(["kind": "stubborn"])
        #expect(await harness.running.opened())
        let container = try harness.container

        harness.daemon.requestShutdown()
        let error = await #expect(throws: DaemonError.self) { try await run.value }
        #expect(error?.code == .jobsDidNotStop)
        #expect(error?.message.contains("stubborn") == true, "\(String(describing: error))")
        await events.drain()
        #expect(!events.seen.contains { if case let .jobReleased(info) = $0 { info.name == entry.name } else { false } })
        // The job that had finished was still flushed and acknowledged.
        #expect(events.seen.contains { if case let .jobAcknowledged(info, _) = $0 { info.name == finished.name } else { false } })
        #expect(try harness.spool.entries(.running).map(\.name) == [entry.name])
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 1, done: 1, failed: 0))
        // The store was not closed under the task: it still answers.
        #expect(try container.rowCount(of: "TestRow") == 2)

        // The stray task ends; the next start (in a new process, once the kernel has dropped
        // this one's locks) recovers the job as interrupted and runs it again.
        harness.latch.open()
        #expect(try harness.spool.recoverActive().requeued == [entry.name])
        #expect(try harness.spool.entries(.queued).map(\.interruptions) == [1])
    }

    @Test func jobsNotStartedAtShutdownAreReturnedToNew() async throws {
        let harness = try DaemonHarness {
            $0.maxConcurrentJobs = 1
            $0.gracePeriod = .seconds(60)
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let slow = try harness.enqueue(["kind": "slow"])
        #expect(await harness.running.opened())
        let waiting = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.next { if case let .jobClaimed(info) = $0 { info.name == waiting.name } else { false } }
        harness.daemon.requestShutdown()
        try await events.next { if case .stopping = $0 { true } else { false } }
        harness.latch.open()
        try await run.value
        await events.drain()
        // The running job finished within the grace period; the queued one never started.
        let done = try harness.spool.entries(.done).map(\.name)
        let queued = try harness.spool.entries(.queued).map(\.name)
        #expect(done == [slow.name], "\(events.seen)")
        #expect(queued == [waiting.name])
        #expect(!events.seen.contains { if case let .jobStarted(info) = $0 { info.name == waiting.name } else { false } })
        #expect(try harness.rowsOnDiskAfterStop() == 1)
    }

    @Test func jobsLeftInActiveAreRecoveredAtStart() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        // A daemon claimed this job, then crashed.
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 2])
        let claimed = try #require(try harness.spool.claimNext())
        #expect(claimed.name == entry.name)
        var (events, run) = try await harness.start()
        guard case let .started(recovery) = try #require(events.seen.last) else { return }
        #expect(recovery.requeued == [entry.name])
        try await events.finished(entry.name)
        try await harness.daemon.flush()
        let report = try harness.resultReport(entry)
        #expect(report.interruptions == 1)
        #expect(report.attempts == 1)
        #expect(try harness.rowsOnDisk() == 2)
        try await harness.stop(run)
    }

    @Test func jobInterruptedTooOftenIsSetAsideAsPoison() async throws {
        let harness = try DaemonHarness { $0.maxInterruptions = 2 }
        defer { harness.removeFiles() }
        let active = harness.configuration.spoolURL.appending(path: "active")
        let job = try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded()
        try job.write(to: active.appending(path: "20260101T000000.000000Z-1-poison-1.i1.job.json"))
        let (events, run) = try await harness.start()
        guard case let .started(recovery) = try #require(events.seen.last) else { return }
        #expect(recovery.poisoned == ["20260101T000000.000000Z-1-poison-1"])
        let failed = try #require(try harness.spool.entries(.failed).first)
        let report = try harness.spool.failureReport(for: failed)
        #expect(report.interruptions == 2)
        #expect(!report.retryable)
        try await harness.stop(run)
        #expect(try harness.rowsOnDiskAfterStop() == 0)
    }

    @Test func shutdownRequestedBeforeRunStopsRightAfterStart() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var events = EventLog(harness.daemon.events())
        harness.daemon.requestShutdown()
        try await harness.daemon.run()
        await events.drain()
        #expect(events.seen.count == 4)
        guard case .started = events.seen[0], case .stopping = events.seen[1], case let .flushed(summary) = events.seen[2],
            summary.reason == .shutdown, summary.acknowledged == [], case .stopped = events.seen[3]
        else {
            Issue.record("unexpected events \(events.seen)")
            return
        }
        await #expect(throws: DaemonError.self) { try await harness.daemon.flush() }
    }

    @Test func cancellingTheRunningTaskShutsDownGracefully() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 3])
        try await events.finished(entry.name)
        run.cancel()
        try await run.value
        // The final flush acknowledged the finished job.
        #expect(try harness.spool.entries(.done).map(\.name) == [entry.name])
        #expect(try harness.rowsOnDiskAfterStop() == 3)
    }

    @Test func storeThatIsNotOursStopsTheStartWithAClearError() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        try Data("not a database at all, just text".utf8).write(to: harness.configuration.storeURL)
        do {
            try await harness.daemon.run()
            Issue.record("the daemon started on a file that is not a store")
        } catch let error as DaemonError {
            #expect(error.code == .storeUnavailable)
            #expect(error.path == harness.configuration.storeURL.path)
        }
    }
}
