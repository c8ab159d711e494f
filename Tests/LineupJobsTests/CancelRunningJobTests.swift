import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// An operator cancels a job while it runs (`lineup cancel`, the dashboard): the daemon that
/// holds it stops its task, discards what it had not saved, and fails it for good as "cancelled
/// by an operator"; the daemon runs on. On a spool the request is a file in `cancel/`; on
/// PostgreSQL a mark on the job's row, notified on `lineup_cancel`.
@Suite(.serialized, .daemonTestTimeLimit) struct CancelRunningJobTests {
    @Test func aRunningJobIsStoppedItsUnsavedWorkDiscardedAndItFailsWithoutRetries() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        // `slow` inserts a row, then waits for the latch, checking for cancellation.
        let slow = try harness.enqueue(["kind": "slow", "id": "long-import", "maxAttempts": 3])
        try await events.started(slow.name)
        #expect(await harness.running.opened(), "the job started its work")
        try harness.spool.requestCancellation(ofJob: "long-import")

        let report = try await events.failed(slow.name)
        #expect(report.reason.contains("cancelled by an operator"), "\(report.reason)")
        #expect(report.reason.contains(slow.fileName), "the reason names the job file: \(report.reason)")
        #expect(!report.retryable)
        #expect(report.attempts == 1, "an operator's cancellation is not retried")
        // The request was acted on and removed.
        #expect(try harness.spool.cancellationRequests().isEmpty)

        // The daemon goes on.
        let next = try harness.enqueue(["kind": "insert-rows", "count": 2])
        try await events.finished(next.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(next.name)
        try await harness.stop(run)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
        // The slow job's row never reached the store.
        #expect(try harness.rowsOnDiskAfterStop() == 2)
    }

    @Test func anAsyncJobIsCancelledAtItsAwait() async throws {
        let sawCancellation = Latch()
        let running = Latch()
        let harness = try DaemonHarness(running: running, registry: testRegistry(running: running, sawCancellation: sawCancellation))
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let sleeper = try harness.enqueue(["kind": "async-sleep", "maxAttempts": 2])
        try await events.started(sleeper.name)
        #expect(await running.opened(), "the job started its work")
        // By name, as `lineup failed` lists it, when the job has no id.
        try harness.spool.requestCancellation(ofJob: sleeper.name)
        let report = try await events.failed(sleeper.name)
        #expect(report.reason.contains("cancelled by an operator"), "\(report.reason)")
        #expect(await sawCancellation.opened(), "the job's Swift task was cancelled")
        try await harness.stop(run)
        #expect(try harness.rowsOnDiskAfterStop() == 0)
    }

    @Test func aJobThatWaitsForItsAfterListFailsAtOnce() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.enqueue(["kind": "slow", "id": "first"])
        let waiting = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "second", "after": ["first"]])
        try await events.next {
            if case let .jobWaitingForDependencies(info, _) = $0 { info.name == waiting.name } else { false }
        }
        try harness.spool.requestCancellation(ofJob: "second")
        let report = try await events.failed(waiting.name)
        #expect(report.reason.contains("cancelled by an operator before it ran"), "\(report.reason)")
        // The job it waited for runs on, untouched.
        harness.latch.open()
        try await events.finished(first.name)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(first.name)
        try await harness.stop(run)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
    }

    @Test func aRequestForAJobTheDaemonDoesNotHoldIsDropped() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try harness.spool.requestCancellation(ofJob: "no-such-job")
        // The next job runs as usual; by then the daemon has read the request.
        let job = try harness.enqueue(["kind": "insert-rows", "count": 1])
        try await events.finished(job.name)
        let deadline = ContinuousClock.now + .seconds(10)
        while try !harness.spool.cancellationRequests().isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try harness.spool.cancellationRequests().isEmpty)
        _ = try await harness.daemon.flush()
        _ = try await events.acknowledged(job.name)
        try await harness.stop(run)
    }

    @Test func requestsNameAnyIdAsAFileOfItsOwn() throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-cancel-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let spool = try SpoolDirectory(root: root, durability: .none)
        #expect(try spool.cancellationRequests().isEmpty, "no directory yet: no request")
        for id in ["import/42002", ".hidden", "plain-id", "ünï cödé", "a%20b"] {
            try spool.requestCancellation(ofJob: id)
            #expect(spool.hasCancellationRequest(ofJob: id))
        }
        // Asked twice, filed once.
        try spool.requestCancellation(ofJob: "plain-id")
        #expect(try spool.cancellationRequests() == [".hidden", "a%20b", "import/42002", "plain-id", "ünï cödé"])
        try spool.removeCancellationRequest(ofJob: "import/42002")
        try spool.removeCancellationRequest(ofJob: "import/42002")
        #expect(try spool.cancellationRequests() == [".hidden", "a%20b", "plain-id", "ünï cödé"])
        #expect(throws: SpoolError.self) { try spool.requestCancellation(ofJob: "") }
    }
}

/// The same on PostgreSQL: `JobDatabase.cancel` fails a queued job in the table at once, and
/// marks a running one for the daemon that holds it.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .serialized, .daemonTestTimeLimit)
struct DatabaseCancelTests {
    @Test func theDaemonThatHoldsARunningJobStopsItWhenNotified() async throws {
        let database = try DatabaseJobsTests.Database()
        let harness = try DaemonHarness { $0.databaseURL = database.url }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let slow = try harness.enqueue(["kind": "slow", "id": "long-import", "maxAttempts": 3])
        try await events.started(slow.name)
        #expect(await harness.running.opened(), "the job started its work")
        let jobs = try database.jobs()
        defer { jobs.close() }
        let cancellation = try jobs.cancel(["long-import"])
        #expect(cancellation == JobDatabase.Cancellation(failed: [], requested: [slow.name]))
        #expect(try jobs.jobs(matching: "long-import").first?.cancellationRequested == true)

        let report = try await events.failed(slow.name)
        #expect(report.reason.contains("cancelled by an operator"), "\(report.reason)")
        #expect(!report.retryable && report.attempts == 1)
        let stored = try #require(try jobs.jobs(matching: "long-import").first)
        #expect(stored.state == .failed && stored.reason == report.reason)
        #expect(!stored.cancellationRequested)

        let next = try harness.enqueue(["kind": "insert-rows", "count": 2])
        try await events.finished(next.name)
        _ = try await harness.daemon.flush()
        // The slow job's row never reached the store.
        #expect(try harness.rowsOnDisk() == 2)
        try await harness.stop(run)
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
    }

    @Test func aQueuedJobFailsAtOnceWithAReport() throws {
        let database = try DatabaseJobsTests.Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        try JobClient(destination: jobs).enqueue(try JobFile(kind: "insert-rows", id: "later", parameters: ["count": 1]))
        #expect(try jobs.cancel(["later", "unknown"]).failed.count == 1)
        let stored = try #require(try jobs.jobs(matching: "later").first)
        #expect(stored.state == .failed && stored.reason == "cancelled")
        let report = try JobFailureReport(data: Data(try #require(stored.report).utf8))
        #expect(report.id == "later" && report.kind == "insert-rows" && !report.retryable)
        // Settled: a second cancel finds nothing to do.
        #expect(try jobs.cancel(["later"]) == JobDatabase.Cancellation())
    }
}
