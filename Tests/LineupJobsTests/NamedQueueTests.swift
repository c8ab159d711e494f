import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// Named queues: the kinds of a queue run within its own concurrency, and the other kinds do not
/// wait for them. Serialized, as ShutdownTests are: the tests hold job threads in slow jobs.
@Suite(.serialized, .daemonTestTimeLimit) struct NamedQueueTests {
    @Test func aQueueOfOneRunsItsJobsOneAtATimeWhileOtherKindsGoOn() async throws {
        let harness = try DaemonHarness {
            $0.maxConcurrentJobs = 2
            $0.queues = ["slow-lane": DaemonConfiguration.NamedQueue(kinds: ["slow"], concurrency: 1)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.enqueue(["kind": "slow"])
        let second = try harness.enqueue(["kind": "slow"])
        try await events.started(first.name)
        // The default queue (two wide) runs other kinds meanwhile.
        var others: [SpoolEntry] = []
        for _ in 0..<3 {
            others.append(try harness.enqueue(["kind": "insert-rows", "count": 2]))
        }
        for other in others {
            try await events.finished(other.name)
        }
        // The second slow job waits for the first: the lane is one wide.
        #expect(!events.seen.contains { if case let .jobStarted(info) = $0 { info.name == second.name } else { false } })
        let status = try #require(await harness.daemon.status())
        #expect(status.running.map(\.job.name) == [first.name])
        #expect(status.maxConcurrentJobs == 3)

        harness.latch.open()
        try await events.finished(first.name)
        try await events.finished(second.name)
        try await harness.stop(run)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 5, failed: 0))
    }

    @Test func aQueueRunsAsManyOfItsJobsAtOnceAsItsConcurrency() async throws {
        let harness = try DaemonHarness {
            $0.maxConcurrentJobs = 1
            $0.queues = ["slow-lane": DaemonConfiguration.NamedQueue(kinds: ["slow"], concurrency: 3)]
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let slow = try (0..<3).map { _ in try harness.enqueue(["kind": "slow"]) }
        for entry in slow {
            try await events.started(entry.name)
        }
        let status = try #require(await harness.daemon.status())
        #expect(status.running.count == 3)
        harness.latch.open()
        try await harness.stop(run)
        #expect(try harness.spool.counts().done == 3)
    }
}
