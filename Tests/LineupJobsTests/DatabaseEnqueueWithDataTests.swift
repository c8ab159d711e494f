import Foundation
import LineupJobs
@testable import LineupPostgres
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// Jobs enqueued with the data on PostgreSQL: inserted into the jobs table in the flush's own
/// transaction, so that the job rows are there exactly when the flush commits.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabaseEnqueueWithDataTests {
    typealias Database = DatabaseJobsTests.Database

    private func count(_ database: Database, _ condition: String) throws -> String {
        try database.psql("SELECT count(*) FROM lineup_jobs WHERE \(condition)")
    }

    @Test func theJobRowsAppearExactlyWhenTheFlushTransactionCommits() throws {
        let database = try Database()
        let jobs = try database.jobs()  // the job tables
        defer { jobs.close() }
        let container = try PersistentContainer(postgresURL: database.url, model: testModel, logger: Logger(label: "test"))
        defer { try? container.close() }
        let context = container.newTaskContext(name: "job")
        try context.performAndWait {
            TestRow(context: context).label = "with a follow-up"
            try context.enqueue(JobFile(kind: "insert-rows", id: "follow-up", parameters: ["count": 1]))
            try context.save()
        }
        // A fence that fails rolls the flush back: neither the row nor the job.
        let fence = FlushStatement("UPDATE lineup_jobs SET id = id WHERE id = -1", expectedRowCount: 1)
        #expect(throws: StoreError.self) {
            try container.flush(including: [fence], routingOutbox: DatabaseJobStorage.jobsTableRoute)
        }
        #expect(try count(database, "job_id = 'follow-up'") == "0")
        #expect(try container.rowCount(of: "TestRow") == 0)

        // The writer kept both: the next flush writes both, once.
        let report = try container.flush(including: [], routingOutbox: DatabaseJobStorage.jobsTableRoute)
        #expect(report.messagesWritten == 1)
        #expect(try count(database, "job_id = 'follow-up' AND state = 'queued' AND kind = 'insert-rows'") == "1")
        #expect(try container.rowCount(of: "TestRow") == 1)
        try container.flush(including: [], routingOutbox: DatabaseJobStorage.jobsTableRoute)
        #expect(try count(database, "job_id = 'follow-up'") == "1")
        #expect(try database.psql("SELECT count(*) FROM lineup_outbox") == "0", "straight into the jobs table")
    }

    @Test func aTaskOfTheDaemonEnqueuesItsFollowUpsWithItsRows() async throws {
        let database = try Database()
        let harness = try DaemonHarness { $0.databaseURL = database.url }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let parent = try harness.enqueue(["kind": "enqueue-follow-ups", "id": "pg-parent", "followUps": ["pg-child"]])
        try await events.finished(parent.name)
        #expect(try count(database, "job_id = 'pg-child'") == "0", "not before the flush")

        let summary = try await harness.daemon.flush()
        #expect(summary.acknowledged == [parent.name])
        #expect(try count(database, "job_id = 'pg-child'") == "1")
        // It runs, under the name it was enqueued with (its outbox key), and is done by the next flush.
        let child = try database.psql("SELECT name FROM lineup_jobs WHERE job_id = 'pg-child'")
        #expect(child.contains("-outbox-"))
        try await events.finished(child)
        try await harness.daemon.flush()
        #expect(try count(database, "job_id = 'pg-child' AND state = 'done'") == "1")

        // A failed attempt enqueues nothing.
        let failing = try harness.enqueue([
            "kind": "enqueue-follow-ups", "id": "pg-failing", "followUps": ["pg-orphan"], "fails": true, "maxAttempts": 1,
        ])
        _ = try await events.failed(failing.name)
        try await harness.daemon.flush()
        #expect(try count(database, "job_id = 'pg-orphan'") == "0")
        try await harness.stop(run)
    }

    /// A flush that no daemon made (a program of its own) writes into the store's outbox; the
    /// daemon's next flush moves it into the jobs table, once.
    @Test func whatAnotherProgramLeftInTheOutboxIsMovedByTheDaemonsNextFlush() async throws {
        let database = try Database()
        do {
            let container = try PersistentContainer(postgresURL: database.url, model: testModel, logger: Logger(label: "program"))
            defer { try? container.close() }
            let context = container.newTaskContext(name: "program")
            try context.performAndWait {
                try context.enqueue(JobFile(kind: "insert-rows", id: "from-a-program", parameters: ["count": 1]))
                try context.save()
            }
            try container.flush()
        }
        #expect(try database.psql("SELECT count(*) FROM lineup_outbox") == "1")

        let harness = try DaemonHarness { $0.databaseURL = database.url }
        defer { harness.removeFiles() }
        let (_, run) = try await harness.start()
        try await harness.daemon.flush()
        #expect(try database.psql("SELECT count(*) FROM lineup_outbox") == "0")
        #expect(try count(database, "job_id = 'from-a-program'") == "1")
        try await harness.daemon.flush()
        #expect(try count(database, "job_id = 'from-a-program'") == "1")
        try await harness.stop(run)
    }
}
