import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// `priority` and `queue` in a daemon: jobs start by priority within their queue, first in, first
/// out within a priority; a job's `queue` overrides its kind's. Serialized, as NamedQueueTests
/// are: the tests hold job threads in slow jobs.
@Suite(.serialized, .daemonTestTimeLimit) struct PriorityTests {
    /// Enqueues a job file written as a producer writes it (the harness's own `enqueue` passes
    /// unknown fields as parameters, which may not take these names).
    @discardableResult
    private func enqueue(_ harness: DaemonHarness, _ json: String) throws -> SpoolEntry {
        try harness.spool.enqueue(JobFile(data: Data(json.utf8)))
    }

    private func startedNames(_ events: EventLog) -> [String] {
        events.seen.compactMap { if case let .jobStarted(info) = $0 { info.name } else { nil } }
    }

    @Test func jobsQueuedBeforeTheStartRunByPriorityThenInTheOrderTheyCame() async throws {
        let harness = try DaemonHarness { $0.maxConcurrentJobs = 1 }
        defer { harness.removeFiles() }
        var entries: [String: SpoolEntry] = [:]
        for (id, priority) in [("a", ""), ("b", #", "priority": 9"#), ("c", #", "priority": 0"#), ("d", ""), ("e", #", "priority": 0"#), ("f", #", "priority": 3"#)] {
            entries[id] = try enqueue(harness, #"{"kind": "insert-rows", "id": "\#(id)", "count": 1\#(priority)}"#)
        }
        var (events, run) = try await harness.start()
        for entry in entries.values {
            try await events.finished(entry.name)
        }
        let order = ["c", "e", "f", "a", "d", "b"].map { entries[$0]!.name }
        #expect(startedNames(events) == order)
        try await harness.stop(run)
    }

    @Test func anUrgentJobOvertakesTheJobsWaitingInItsQueue() async throws {
        let harness = try DaemonHarness { $0.maxConcurrentJobs = 1 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let blocker = try enqueue(harness, #"{"kind": "slow", "id": "blocker"}"#)
        try await events.started(blocker.name)
        let ordinary = try enqueue(harness, #"{"kind": "insert-rows", "id": "ordinary", "count": 1}"#)
        let background = try enqueue(harness, #"{"kind": "insert-rows", "id": "background", "count": 1, "priority": 8}"#)
        let urgent = try enqueue(harness, #"{"kind": "insert-rows", "id": "urgent", "count": 1, "priority": 0}"#)
        // All three claimed and waiting behind the blocker before it lets go.
        let deadline = ContinuousClock.now + .seconds(30)
        while try harness.spool.counts().queued > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        harness.latch.open()
        for entry in [ordinary, background, urgent] {
            try await events.finished(entry.name)
        }
        #expect(startedNames(events) == [blocker, urgent, ordinary, background].map(\.name))
        try await harness.stop(run)
    }

    @Test func aJobThatNamesAQueueRunsThereWhateverItsKind() async throws {
        let harness = try DaemonHarness {
            $0.maxConcurrentJobs = 2
            $0.queues = ["one-lane": DaemonConfiguration.NamedQueue(kinds: ["insert-rows"], concurrency: 1)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try enqueue(harness, #"{"kind": "slow", "id": "first", "queue": "one-lane"}"#)
        let second = try enqueue(harness, #"{"kind": "slow", "id": "second", "queue": "one-lane"}"#)
        try await events.started(first.name)
        // The default queue (two wide) would run both; the lane they name is one wide.
        let other = try enqueue(harness, #"{"kind": "slow", "id": "other"}"#)
        try await events.started(other.name)
        #expect(!startedNames(events).contains(second.name))
        let status = try #require(await harness.daemon.status())
        #expect(Set(status.running.map(\.job.name)) == [first.name, other.name])
        harness.latch.open()
        for entry in [first, second, other] {
            try await events.finished(entry.name)
        }
        try await harness.stop(run)
    }

    @Test func aJobThatNamesAQueueTheDaemonHasNotConfiguredRunsInItsKindsQueue() async throws {
        let harness = try DaemonHarness {
            $0.maxConcurrentJobs = 2
            $0.queues = ["slow-lane": DaemonConfiguration.NamedQueue(kinds: ["slow"], concurrency: 1)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try enqueue(harness, #"{"kind": "slow", "id": "first"}"#)
        try await events.started(first.name)
        let stray = try enqueue(harness, #"{"kind": "slow", "id": "stray", "queue": "no-such-queue"}"#)
        let plain = try enqueue(harness, #"{"kind": "insert-rows", "id": "plain", "count": 1, "queue": "no-such-queue"}"#)
        // The slow kind's lane is one wide: the stray slow job waits there; the other kind runs
        // in the default queue.
        try await events.finished(plain.name)
        #expect(!startedNames(events).contains(stray.name))
        harness.latch.open()
        try await events.finished(stray.name)
        _ = try await harness.daemon.flush()
        try await harness.stop(run)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 3, failed: 0))
    }
}
