import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// `uniqueKey`: held while its job is queued or running, free once the job has finished running,
/// even before the flush that acknowledges it.
@Suite(.daemonTestTimeLimit) struct UniqueKeyTests {
    @Test func aQueuedOrRunningHolderRefusesTheSecondJob() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.spool.enqueue(JobFile(kind: "slow", id: "first", uniqueKey: "waves"))
        #expect(await harness.running.opened())
        let second = try harness.spool.enqueue(JobFile(kind: "insert-rows", id: "second", uniqueKey: "waves", parameters: ["count": 1]))
        let refusal = try await events.failed(second.name)
        #expect(refusal.reason.contains("refused: job first") && refusal.reason.contains("`waves`"), "\(refusal.reason)")
        harness.latch.open()
        try await events.finished(first.name)
        try await harness.stop(run)
    }

    @Test func aHolderThatFinishedRunningHoldsTheKeyNoMoreWhileItWaitsForItsFlush() async throws {
        // No flush but on request: the first job stays finished and unacknowledged.
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.spool.enqueue(JobFile(kind: "insert-rows", id: "first", uniqueKey: "waves", parameters: ["count": 1]))
        try await events.finished(first.name)
        let second = try harness.spool.enqueue(JobFile(kind: "insert-rows", id: "second", uniqueKey: "waves", parameters: ["count": 1]))
        try await events.ended(second.name)
        #expect(!events.seen.contains { if case .jobFailed = $0 { true } else { false } }, "\(events.seen)")
        let summary = try await harness.daemon.flush()
        #expect(Set(summary.acknowledged) == [first.name, second.name])
        try await harness.stop(run)
    }
}
