import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Testing

/// `uniqueFor`: with it, a job's `uniqueKey` is refused also while a job holding the key was done
/// within the period (done: finished and waiting for its flush, or filed in `done/`, by this run
/// or an earlier one). A failed job holds no key.
@Suite(.daemonTestTimeLimit) struct UniqueForTests {
    @discardableResult
    private func enqueue(_ harness: DaemonHarness, _ json: String) throws -> SpoolEntry {
        try harness.spool.enqueue(JobFile(data: Data(json.utf8)))
    }

    @Test func aJobDoneWithinThePeriodRefusesTheNextOneThatSaysUniqueFor() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try enqueue(harness, #"{"kind": "insert-rows", "id": "first", "uniqueKey": "waves", "count": 1}"#)
        try await events.finished(first.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(first.name)

        let second = try enqueue(harness, #"{"kind": "insert-rows", "id": "second", "uniqueKey": "waves", "uniqueFor": "1h", "count": 1}"#)
        let refusal = try await events.failed(second.name)
        #expect(refusal.reason.contains("uniqueKey `waves`") && refusal.reason.contains("within uniqueFor (3600"), "\(refusal.reason)")
        #expect(!refusal.retryable)
        // Without uniqueFor, a done job holds the key no more.
        let third = try enqueue(harness, #"{"kind": "insert-rows", "id": "third", "uniqueKey": "waves", "count": 1}"#)
        try await events.finished(third.name)
        try await harness.stop(run)
    }

    @Test func aJobThatFinishedAndWaitsForItsFlushIsDoneForUniqueFor() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try enqueue(harness, #"{"kind": "insert-rows", "id": "first", "uniqueKey": "waves", "count": 1}"#)
        try await events.finished(first.name)
        let second = try enqueue(harness, #"{"kind": "insert-rows", "id": "second", "uniqueKey": "waves", "uniqueFor": 600, "count": 1}"#)
        let refusal = try await events.failed(second.name)
        #expect(refusal.reason.contains("within uniqueFor (600"), "\(refusal.reason)")
        try await harness.stop(run)
    }

    @Test func aJobDoneLongerAgoThanThePeriodHoldsTheKeyNoMore() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try enqueue(harness, #"{"kind": "insert-rows", "id": "first", "uniqueKey": "waves", "count": 1}"#)
        try await events.finished(first.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(first.name)
        try await Task.sleep(for: .milliseconds(300))
        let second = try enqueue(harness, #"{"kind": "insert-rows", "id": "second", "uniqueKey": "waves", "uniqueFor": 0.1, "count": 1}"#)
        try await events.ended(second.name)
        #expect(!events.seen.contains { if case .jobFailed = $0 { true } else { false } }, "\(events.seen)")
        try await harness.stop(run)
    }

    @Test func aFailedJobHoldsNoKey() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let broken = try enqueue(harness, #"{"kind": "insert-rows", "id": "broken", "uniqueKey": "waves", "count": -1}"#)
        _ = try await events.failed(broken.name)
        let next = try enqueue(harness, #"{"kind": "insert-rows", "id": "next", "uniqueKey": "waves", "uniqueFor": "1h", "count": 1}"#)
        try await events.finished(next.name)
        try await harness.stop(run)
    }

    @Test func theKeysOfJobsDoneBeforeARestartHoldForTheirPeriod() async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-jobs-tests-\(UUID().uuidString)")
        let before = try DaemonHarness(root: root)
        defer { before.removeFiles() }
        do {
            var (events, run) = try await before.start()
            let first = try enqueue(before, #"{"kind": "insert-rows", "id": "first", "uniqueKey": "waves", "count": 1}"#)
            try await events.finished(first.name)
            _ = try await before.daemon.flush()
            _ = try await events.acknowledged(first.name)
            try await before.stop(run)
        }
        let after = try DaemonHarness(root: root)
        defer { after.removeFiles() }
        var (events, run) = try await after.start()
        let second = try enqueue(after, #"{"kind": "insert-rows", "id": "second", "uniqueKey": "waves", "uniqueFor": "1d", "count": 1}"#)
        let refusal = try await events.failed(second.name)
        #expect(refusal.reason.contains("within uniqueFor (86400"), "\(refusal.reason)")
        try await after.stop(run)
    }
}
