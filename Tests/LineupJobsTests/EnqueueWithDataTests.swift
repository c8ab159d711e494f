import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import Testing

/// Jobs enqueued in a context (`context.enqueue(_:)`) exist exactly when that context's changes
/// reach the disk: on SQLite through the store's outbox, which the daemon moves into the spool
/// after the flush's commit, once.
@Suite(.daemonTestTimeLimit) struct EnqueueWithDataTests {
    /// The spool's jobs whose id is `id`, with the directory each is in.
    private func jobs(withID id: String, in spool: SpoolDirectory) throws -> [(JobState, SpoolEntry)] {
        var found: [(JobState, SpoolEntry)] = []
        for state in [JobState.queued, .running, .done, .failed] {
            for entry in try spool.entries(state) where (try? JobFile(data: Data(contentsOf: entry.url)))?.id == id {
                found.append((state, entry))
            }
        }
        return found
    }

    private func outboxCount(_ harness: DaemonHarness) throws -> Int {
        try harness.container.outboxEntries(on: OutboxMessage.jobChannel, limit: 1000).count
    }

    @Test func aFollowUpEnqueuedByATaskExistsOnlyOnceTheTasksRowsAreWrittenAndRunsOnce() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let parent = try harness.enqueue(["kind": "enqueue-follow-ups", "id": "parent", "followUps": ["child-1", "child-2"]])
        try await events.finished(parent.name)
        // Saved into the main context, with the parent's row: neither on disk nor in the spool.
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try jobs(withID: "child-1", in: harness.spool).isEmpty)
        #expect(try outboxCount(harness) == 0)

        let summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == [parent.name])
        #expect(try harness.rowsOnDisk() == 1)
        #expect(try outboxCount(harness) == 0, "moved into the spool after the commit")
        let children = try ["child-1", "child-2"].map { id in
            let found = try jobs(withID: id, in: harness.spool)
            #expect(found.count == 1, "\(id): \(found.map(\.1.fileName))")
            return try #require(found.first?.1)
        }
        #expect(children.allSatisfy { $0.name.contains("-outbox-") })
        for child in children { try await events.finished(child.name) }
        try await harness.daemon.flush()
        for id in ["child-1", "child-2"] {
            #expect(try jobs(withID: id, in: harness.spool).map(\.0) == [.done])
        }
        #expect(try harness.rowsOnDisk() == 3)
        try await harness.stop(run)
    }

    /// JobTask rolls its context back when an attempt fails: its follow-ups go with its rows.
    @Test func aFailedAttemptEnqueuesNothing() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let parent = try harness.enqueue([
            "kind": "enqueue-follow-ups", "id": "failing-parent", "followUps": ["orphan"], "fails": true, "maxAttempts": 1,
        ])
        _ = try await events.failed(parent.name)
        let summary = try await harness.daemon.flush()
        #expect(summary.rowsWritten == 0)
        #expect(try outboxCount(harness) == 0)
        #expect(try jobs(withID: "orphan", in: harness.spool).isEmpty)
        try await harness.stop(run)
        #expect(try jobs(withID: "orphan", in: harness.spool).isEmpty)
    }

    /// What a crash left in the outbox is moved at the next start, before anything is claimed;
    /// a job that reached the spool before the crash (its row not deleted yet) is not moved again.
    @Test func theOutboxLeftByACrashIsMovedAtStartAndAJobAlreadyInTheSpoolIsNotDoubled() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        // A stack of its own, as a daemon's that died after its flush: three jobs in the outbox.
        let container = try PersistentContainer(url: harness.configuration.storeURL, model: testModel, logger: Logger(label: "crashed"))
        let context = container.newTaskContext(name: "crashed-job")
        try context.performAndWait {
            TestRow(context: context).label = "before the crash"
            try context.enqueue(
                contentsOf: ["left-1", "left-2", "left-3"].map { try JobFile(kind: "insert-rows", id: $0, parameters: ["count": 1]) })
            try context.save()
        }
        try container.flush()
        let entries = try container.outboxEntries(on: OutboxMessage.jobChannel, limit: 10)
        #expect(entries.count == 3)
        // The first was moved into the spool, and run and filed in done/, before the crash.
        let moved = try harness.spool.enqueue(try JobFile(data: entries[0].message.body), named: entries[0].message.key)
        let claimed = try #require(try harness.spool.claim(fileName: moved.fileName))
        try harness.spool.complete(
            claimed,
            report: JobResultReport(
                name: claimed.name, id: "left-1", kind: "insert-rows", attempts: 1, startedAt: Date(), finishedAt: Date()))
        try container.close()

        var (events, run) = try await harness.start()
        #expect(try outboxCount(harness) == 0)
        #expect(try jobs(withID: "left-1", in: harness.spool).count == 1)
        for id in ["left-2", "left-3"] {
            let found = try jobs(withID: id, in: harness.spool)
            #expect(found.count == 1, "\(id)")
            if let entry = found.first?.1 { try await events.finished(entry.name) }
        }
        try await harness.daemon.flush()
        #expect(try harness.spool.counts().done == 3)
        try await harness.stop(run)
    }

    /// A row that holds no job file (no Lineup writes one) stays in the outbox, logged, and holds
    /// up none of the rows after it.
    @Test func aRowWithoutAJobFileIsLeftInTheOutboxAndTheRestMoves() async throws {
        let harness = try DaemonHarness()
        defer { harness.removeFiles() }
        let container = try PersistentContainer(url: harness.configuration.storeURL, model: testModel, logger: Logger(label: "writer"))
        let context = container.newTaskContext(name: "writer")
        try context.performAndWait {
            context.enqueue(OutboxMessage(channel: OutboxMessage.jobChannel, key: "garbage", body: Data("not a job".utf8)))
            try context.enqueue(JobFile(kind: "insert-rows", id: "after-the-garbage", parameters: ["count": 1]))
            try context.save()
        }
        try container.flush()
        try container.close()

        let (_, run) = try await harness.start()
        #expect(try jobs(withID: "after-the-garbage", in: harness.spool).count == 1)
        #expect(try harness.container.outboxEntries(on: OutboxMessage.jobChannel, limit: 10).map(\.message.key) == ["garbage"])
        try await harness.stop(run)
    }
}
