import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// Jobs in a PostgreSQL database (`DaemonConfiguration.databaseURL`): the spool is the host's
/// intake, the table is the queue, and a job is done in the transaction of the flush that writes
/// its rows. Against a real server (`PostgresTestServer`).
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .timeLimit(.minutes(2)))
struct DatabaseJobsTests {
    /// A database of its own, dropped when the test ends.
    final class Database {
        let server: PostgresTestServer
        let name: String
        let url: URL

        init() throws {
            server = try PostgresTestServer.shared()
            name = try server.createDatabase()
            url = URL(string: server.url(database: name))!
        }

        deinit { try? server.dropDatabase(name) }

        func jobs() throws -> JobDatabase {
            try JobDatabase(url: url, logger: Logger(label: "test"))
        }

        /// The jobs table's counts by state.
        func counts() throws -> [String: Int] {
            let jobs = try jobs()
            defer { jobs.close() }
            return try jobs.counts()
        }

        func psql(_ sql: String) throws -> String {
            try server.psql(sql, database: name)
        }
    }

    private func harness(_ database: Database, root: URL? = nil, configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> DaemonHarness {
        try DaemonHarness(root: root) { configuration in
            configuration.databaseURL = database.url
            configure(&configuration)
        }
    }

    @Test func jobsFromTheSpoolAreDoneInTheDatabaseByTheFlushThatWritesTheirRows() async throws {
        let database = try Database()
        let harness = try harness(database)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entries = try (1...3).map { try harness.enqueue(["kind": "insert-rows", "count": .integer($0)]) }
        for entry in entries {
            try await events.finished(entry.name)
        }
        // Finished, not flushed: running in the table, no row in the store, and nothing left in
        // the spool (the intake moved the files into the table).
        #expect(try database.counts() == ["available": 0, "running": 3, "done": 0, "failed": 0])
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try harness.spool.counts() == SpoolCounts(queued: 0, running: 0, done: 0, failed: 0))

        let summary = try await harness.daemon.flush()
        #expect(Set(summary.acknowledged) == Set(entries.map(\.name)))
        #expect(try harness.rowsOnDisk() == 6)
        #expect(try database.counts() == ["available": 0, "running": 0, "done": 3, "failed": 0])
        let reports = try database.psql("SELECT report::jsonb->>'kind' FROM lineup_jobs ORDER BY id")
        #expect(reports == "insert-rows\ninsert-rows\ninsert-rows")
        try await harness.stop(run)
        // A clean stop gives the lease up.
        #expect(try database.psql("SELECT count(*) FROM lineup_daemons") == "0")
    }

    @Test func aBrokenJobFileFailsInTheTableWithItsReason() async throws {
        let database = try Database()
        let harness = try harness(database)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(raw: "{ not json")
        let report = try await events.failed(entry.name)
        #expect(report.reason.contains("\(entry.name).job.json"))
        #expect(try database.counts()["failed"] == 1)
        let reason = try database.psql("SELECT reason FROM lineup_jobs")
        #expect(reason == report.reason)
        try await harness.stop(run)
    }

    /// Another daemon took the job back (its lease ran out): the flush that would acknowledge it
    /// is rolled back with its rows, and the daemon stops, so that the job's rows are written
    /// once, by whichever daemon runs it again.
    @Test func aFlushCarryingAJobTakenBackByAnotherDaemonWritesNothingAndTheDaemonStops() async throws {
        let database = try Database()
        // No poll while the test plays the other daemon: this one must not claim the job again.
        let harness = try harness(database) { $0.rescanInterval = .seconds(3600); $0.lease = .seconds(3600) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 5])
        try await events.finished(entry.name)
        // What a daemon's rescue does when this one's lease has run out.
        _ = try database.psql(
            """
            WITH expired AS (DELETE FROM lineup_daemons RETURNING id)
            UPDATE lineup_jobs SET state = 'available', claimed_by = NULL, interruptions = interruptions + 1
            WHERE claimed_by IN (SELECT id FROM expired)
            """)
        await #expect(throws: StoreError.self) { try await harness.daemon.flush() }
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try database.counts() == ["available": 1, "running": 0, "done": 0, "failed": 0])
        do {
            try await run.value
            Issue.record("the daemon went on after losing its lease")
        } catch let error as DaemonError {
            #expect(error.code == .leaseLost)
        }
        #expect(try database.psql("SELECT count(*) FROM \"TestRow\"") == "0")
    }

    /// The intake's crash window: a file claimed into `active/` and inserted, but not deleted,
    /// when the daemon died. The next start inserts it again, which its key turns into nothing.
    @Test func aJobFileLeftInActiveAfterItsInsertRunsOnce() async throws {
        let database = try Database()
        let root = FileManager.default.temporaryDirectory.appending(path: "lineup-jobs-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let spool = try SpoolDirectory(root: root.appending(path: "spool"), durability: .none)
        let inserted = try spool.enqueue(JobFile(kind: "insert-rows", parameters: ["count": 2]))
        let claimed = try #require(try spool.claim(fileName: inserted.fileName))
        let notInserted = try spool.enqueue(JobFile(kind: "insert-rows", parameters: ["count": 3]))
        let alsoClaimed = try #require(try spool.claim(fileName: notInserted.fileName))
        let jobs = try database.jobs()
        try jobs.enqueue([JobDatabase.Submission(name: claimed.name, contents: claimed.contents, intakeKey: claimed.fileName)])
        jobs.close()

        let harness = try harness(database, root: root) { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        _ = try await events.acknowledged(claimed.name)
        _ = try await events.acknowledged(alsoClaimed.name)
        #expect(try database.counts() == ["available": 0, "running": 0, "done": 2, "failed": 0])
        #expect(try harness.rowsOnDisk() == 5)
        #expect(try harness.spool.entries(.running).isEmpty)
        try await harness.stop(run)
    }

    /// Two daemons, each with its own spool, on one database: every job is done once, whichever
    /// spool it came in by and whichever daemon ran it.
    @Test func twoDaemonsShareTheJobsOfOneDatabaseAndRunEachOnce() async throws {
        let database = try Database()
        let first = try harness(database) { $0.flushesWhenIdle = true; $0.flushJobLimit = 10 }
        defer { first.removeFiles() }
        let second = try harness(database) { $0.flushesWhenIdle = true; $0.flushJobLimit = 10 }
        defer { second.removeFiles() }
        var (firstEvents, firstRun) = try await first.start()
        var (secondEvents, secondRun) = try await second.start()
        var names: [String] = []
        for number in 0..<40 {
            let harness = number.isMultiple(of: 2) ? first : second
            names.append(try harness.enqueue(["kind": "insert-rows", "count": 1, "label": .string("job \(number)")]).name)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while try database.counts()["done"] != 40, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try database.counts() == ["available": 0, "running": 0, "done": 40, "failed": 0])
        try await first.stop(firstRun)
        try await second.stop(secondRun)
        await firstEvents.drain()
        await secondEvents.drain()
        let acknowledged = (firstEvents.seen + secondEvents.seen).compactMap { event -> String? in
            if case let .jobAcknowledged(info, _) = event { info.name } else { nil }
        }
        #expect(acknowledged.sorted() == names.sorted(), "each job acknowledged once, by one daemon")
        let labels = try database.psql("SELECT count(*), count(DISTINCT label) FROM \"TestRow\"")
        #expect(labels == "40|40")
    }
}
