import Foundation
import LineupJobs
import LineupPostgres
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
    .daemonTestTimeLimit)
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
        func counts() throws -> JobCounts {
            let jobs = try jobs()
            defer { jobs.close() }
            return try jobs.counts()
        }

        /// Polls the table until `count` jobs are in `state`, for at most `limit` (the
        /// expectations that follow say what went wrong if they never are).
        func waitUntil(_ state: JobState, count: Int, within limit: Duration = .seconds(60)) async throws {
            let deadline = ContinuousClock.now + limit
            while try counts()[state] != count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        func psql(_ sql: String) throws -> String {
            try server.psql(sql, database: name)
        }
    }

    private func harness(_ database: Database, root: URL? = nil, configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> DaemonHarness {
        try DaemonHarness(root: root) { configuration in
            configuration.databaseURL = database.url
            // A lease no test outlives by accident: the whole parallel run on two cores has been
            // seen to hold a daemon's heartbeats back past the default 30 s, and the other daemon
            // then took its jobs back. Tests of expiry set their own lease or expire it in SQL.
            configuration.lease = .seconds(600)
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
        #expect(try database.counts() == JobCounts(queued: 0, running: 3, done: 0, failed: 0))
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try harness.spool.counts() == JobCounts(queued: 0, running: 0, done: 0, failed: 0))

        let summary = try await harness.daemon.flush()
        #expect(Set(summary.acknowledged) == Set(entries.map(\.name)))
        #expect(try harness.rowsOnDisk() == 6)
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 3, failed: 0))
        let reports = try database.psql("SELECT report::jsonb->>'kind' FROM lineup_jobs ORDER BY id")
        #expect(reports == "insert-rows\ninsert-rows\ninsert-rows")
        try await harness.stop(run)
        // A clean stop gives the lease up.
        #expect(try database.psql("SELECT count(*) FROM lineup_daemons") == "0")
    }

    /// Every report of a flush rides in one JSON argument of the acknowledgement: whatever
    /// characters a job puts in its report, its row holds the report's text byte for byte.
    @Test func aReportReachesItsRowByteForByteWhateverItsCharacters() async throws {
        let database = try Database()
        let harness = try harness(database) { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let key = "quote \" backslash \\ slash / newline \n tab \t control \u{1} é 🌊 \u{2028}"
        let entry = try harness.enqueue(["kind": "upsert-keyed", "key": .string(key), "value": 1])
        let report = try await events.acknowledged(entry.name)
        #expect(report.details["summary"] == .string("inserted \(key)"))
        let written = try report.encoded().map { String(format: "%02x", $0) }.joined()
        #expect(try database.psql("SELECT encode(convert_to(report, 'UTF8'), 'hex') FROM lineup_jobs") == written)
        try await harness.stop(run)
    }

    @Test func aBrokenJobFileFailsInTheTableWithItsReason() async throws {
        let database = try Database()
        let harness = try harness(database)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(raw: "{ not json")
        let report = try await events.failed(entry.name)
        #expect(report.reason.contains("\(entry.name).job.json"))
        #expect(try database.counts()[.failed] == 1)
        let reason = try database.psql("SELECT reason FROM lineup_jobs")
        #expect(reason == report.reason)
        try await harness.stop(run)
    }

    /// A bulk file with no job in it (blank lines only) gives the table nothing to fail: the
    /// intake fails it whole in the host's `failed/`, with its reason, as a daemon on a spool does.
    @Test func aBulkFileWithNoJobFailsInTheSpoolWithItsReason() async throws {
        let database = try Database()
        let harness = try harness(database)
        defer { harness.removeFiles() }
        let (_, run) = try await harness.start()
        let entry = try harness.spool.enqueueBulk(contents: Data("\n  \n".utf8))
        let deadline = ContinuousClock.now + .seconds(30)
        while try harness.spool.entries(.failed).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let failed = try #require(try harness.spool.entries(.failed).first)
        #expect(failed.name == entry.name)
        #expect(try harness.spool.failureReport(for: failed).reason.contains("holds no job"))
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 0, failed: 0))
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
            UPDATE lineup_jobs SET state = 'queued', claimed_by = NULL, interruptions = interruptions + 1
            WHERE claimed_by IN (SELECT id FROM expired)
            """)
        await #expect(throws: StoreError.self) { try await harness.daemon.flush() }
        #expect(try harness.rowsOnDisk() == 0)
        #expect(try database.counts() == JobCounts(queued: 1, running: 0, done: 0, failed: 0))
        do {
            try await run.value
            Issue.record("the daemon went on after losing its lease")
        } catch let error as DaemonError {
            #expect(error.code == .leaseLost)
        }
        #expect(try database.psql("SELECT count(*) FROM \"TestRow\"") == "0")
    }

    /// Two daemons wrote the same natural key (two imports of one station): the flush of the
    /// second meets the first's row, which the job's merge policy (`.error`, the default) does
    /// not settle. The flush fails with the conflict and what it carried is discarded; the daemon
    /// goes on, and the job runs again, reads the other daemon's row and updates it. (With any
    /// other policy the store settles the conflict and the flush goes through: StoreConflictTests.)
    @Test func aFlushThatMeetsAnotherDaemonsRowRunsItsJobAgainAndTheDaemonGoesOn() async throws {
        let database = try Database()
        let first = try harness(database)
        defer { first.removeFiles() }
        var (events, run) = try await first.start()
        let entry = try first.enqueue(["kind": "upsert-keyed", "key": "station 42", "value": 1])
        try await events.finished(entry.name)
        // Another daemon's import of the same key, written first.
        let other = try PersistentContainer(postgresURL: database.url, model: testModel, logger: Logger(label: "other daemon"))
        let context = other.newTaskContext(name: "other")
        try context.performAndWait {
            let row = KeyedRow(context: context)
            row.key = "station 42"
            row.value = 2
            try context.save()
        }
        try other.flush()
        try other.close()

        let error = await #expect(throws: StoreError.self) { try await first.daemon.flush() }
        #expect(error?.code == .mergeConflict)
        _ = try await events.next {
            if case let .retryScheduled(info, _, _) = $0 { return info.name == entry.name }
            return false
        }
        _ = try await events.next {
            if case let .jobFinished(info) = $0 { return info.name == entry.name && info.attempt == 2 }
            return false
        }
        let flushed = try await first.daemon.flush()
        #expect(flushed.acknowledged == [entry.name])
        #expect(try database.psql("SELECT state FROM lineup_jobs") == "done")
        #expect(try database.psql(#"SELECT key, value FROM "KeyedRow""#) == "station 42|1")
        let report = try await events.acknowledged(entry.name)
        #expect(report.details["summary"] == "updated station 42")
        #expect(report.attempts == 2)
        try await first.stop(run)
    }

    /// The server drops every connection (a restart, a failover, a proxy's idle timeout): a
    /// flush may fail once, the next one reconnects, and the job is done once; the daemon goes on.
    @Test func aDaemonWhoseConnectionsAreDroppedReconnectsAndGoesOn() async throws {
        let database = try Database()
        let harness = try harness(database)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 3])
        try await events.finished(entry.name)
        let dropped = try database.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        #expect(try #require(Int(dropped)) >= 4, "the writer's, the readers', the queue's and the listener's connections")
        var acknowledged: [String] = []
        for _ in 0..<5 where acknowledged.isEmpty {
            acknowledged = (try? await harness.daemon.flush())?.acknowledged ?? []
            if acknowledged.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(acknowledged == [entry.name])
        #expect(try harness.rowsOnDisk() == 3)
        // And it goes on claiming and acknowledging (the poll stands in for the lost LISTEN).
        let next = try harness.enqueue(["kind": "insert-rows", "count": 2])
        try await events.finished(next.name)
        #expect(try await harness.daemon.flush().acknowledged == [next.name])
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 2, failed: 0))
        #expect(try harness.rowsOnDisk() == 5)
        try await harness.stop(run)
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
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 2, failed: 0))
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
        try await database.waitUntil(.done, count: 40)
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 40, failed: 0))
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

    // MARK: - What the spool's runner checks, on the table

    @Test func aJobAfterAnotherIsClaimedOnlyOnceThatOneIsDone() async throws {
        let database = try Database()
        let harness = try harness(database) { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let dependent = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "second", "after": ["first"]])
        let first = try harness.enqueue(["kind": "insert-rows", "count": 2, "id": "first"])
        _ = try await events.acknowledged(first.name)
        _ = try await events.acknowledged(dependent.name)
        #expect(
            try database.psql(
                "SELECT b.claimed_at >= a.finished_at FROM lineup_jobs a, lineup_jobs b WHERE a.job_id = 'first' AND b.job_id = 'second'")
                == "t")
        #expect(try harness.rowsOnDisk() == 3)
        try await harness.stop(run)
    }

    @Test func aJobAfterOneThatFailedFails() async throws {
        let database = try Database()
        let harness = try harness(database) { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let failing = try harness.enqueue(["kind": "fail-n-times", "failures": 5, "maxAttempts": 1, "id": "failing"])
        _ = try await events.failed(failing.name)
        let dependent = try harness.enqueue(["kind": "insert-rows", "count": 1, "after": ["failing"]])
        let report = try await events.failed(dependent.name)
        #expect(report.reason.contains("job failing in `after` failed"))
        #expect(try harness.rowsOnDisk() == 0)
        try await harness.stop(run)
    }

    /// No daemon ever claims a job of a cycle (each waits for the other to be settled): the
    /// daemons' ticks find the cycle and fail it, as a spool's runner does at claim time.
    @Test func jobsThatWaitForEachOtherFailAsACycle() async throws {
        let database = try Database()
        let harness = try harness(database)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "a", "after": ["b"]])
        let second = try harness.enqueue(["kind": "insert-rows", "count": 1, "id": "b", "after": ["a"]])
        try await database.waitUntil(.failed, count: 2)
        let reasons = try database.psql("SELECT reason FROM lineup_jobs ORDER BY id").split(separator: "\n")
        #expect(reasons == [
            "\(first.name).job.json: dependency cycle: job a waits, through `after`, for jobs that wait for it",
            "\(second.name).job.json: dependency cycle: job b waits, through `after`, for jobs that wait for it",
        ])
        try await harness.stop(run)
        await events.drain()
        #expect(!events.seen.contains { if case .jobStarted = $0 { true } else { false } })
    }

    @Test func aJobAfterAnIdThatNoJobHasFailsAfterTheWait() async throws {
        let database = try Database()
        let harness = try harness(database) { $0.dependencyWaitTimeout = .milliseconds(500) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "insert-rows", "count": 1, "after": ["nobody"]])
        try await database.waitUntil(.failed, count: 1)
        #expect(
            try database.psql("SELECT reason FROM lineup_jobs")
                == "\(entry.name).job.json: unknown dependency: no job with id nobody (named in `after`) was queued, running, done or failed within 0.5 s")
        try await harness.stop(run)
        await events.drain()
        #expect(!events.seen.contains { if case .jobStarted = $0 { true } else { false } })
    }

    @Test func aJobWhoseUniqueKeyIsHeldByAQueuedJobGoesInFailed() throws {
        let database = try Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        func submission(_ name: String) throws -> JobDatabase.Submission {
            JobDatabase.Submission(name: name, contents: try JobFile(kind: "insert-rows", uniqueKey: "nightly", parameters: ["count": 1]).encoded())
        }
        // Two in one batch, then one more: the first holds the key.
        #expect(try jobs.enqueue([try submission("first"), try submission("second")]) == 2)
        #expect(try jobs.enqueue([try submission("third")]) == 1)
        let rows = try database.psql("SELECT name, state, coalesce(reason, '') FROM lineup_jobs ORDER BY id").split(separator: "\n")
        #expect(rows == [
            "first|queued|",
            "second|failed|second.job.json: duplicate job: refused: job first holds uniqueKey `nightly` and is queued or running",
            "third|failed|third.job.json: duplicate job: refused: job first holds uniqueKey `nightly` and is queued or running",
        ])
        // Once the holder is settled, the key is free again.
        _ = try database.psql("UPDATE lineup_jobs SET state = 'done' WHERE name = 'first'")
        try jobs.enqueue([try submission("fourth")])
        #expect(try database.psql("SELECT state FROM lineup_jobs WHERE name = 'fourth'") == "queued")
    }

    @Test func retentionRemovesOldDoneJobsButThoseThatQueuedJobsWaitFor() throws {
        let database = try Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        try jobs.enqueue([
            JobDatabase.Submission(name: "waited-for", contents: try JobFile(kind: "insert-rows", id: "kept", parameters: ["count": 1]).encoded()),
            JobDatabase.Submission(name: "plain", contents: try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded()),
            JobDatabase.Submission(name: "recent", contents: try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded()),
            JobDatabase.Submission(
                name: "waiting", contents: try JobFile(kind: "insert-rows", after: ["kept"], parameters: ["count": 1]).encoded()),
        ])
        _ = try database.psql(
            """
            UPDATE lineup_jobs SET state = 'done',
                finished_at = CASE name WHEN 'recent' THEN now() ELSE now() - interval '2 days' END
            WHERE name <> 'waiting'
            """)
        #expect(try jobs.pruneDone(finishedBefore: Date().addingTimeInterval(-86_400)) == 1)
        #expect(try database.psql("SELECT name FROM lineup_jobs ORDER BY id") == "waited-for\nrecent\nwaiting")
        _ = try database.psql("UPDATE lineup_jobs SET state = 'done', finished_at = now() - interval '2 days' WHERE name = 'waiting'")
        #expect(try jobs.pruneDone(finishedBefore: Date().addingTimeInterval(-86_400)) == 2)
        #expect(try database.psql("SELECT name FROM lineup_jobs") == "recent")
    }

    /// A daemon that died: once its lease has run out, its jobs go back to the queue, but for one
    /// whose daemons died under it more often than the poison threshold, which fails.
    @Test func jobsOfADaemonWhoseLeaseRanOutAreTakenBackOrSetAsideAsPoison() async throws {
        let database = try Database()
        let jobs = try database.jobs()
        try jobs.enqueue([
            JobDatabase.Submission(name: "survivor", contents: try JobFile(kind: "insert-rows", parameters: ["count": 2]).encoded()),
            JobDatabase.Submission(name: "poison", contents: try JobFile(kind: "insert-rows", parameters: ["count": 3]).encoded()),
        ])
        jobs.close()
        _ = try database.psql(
            """
            WITH dead AS (INSERT INTO lineup_daemons (host, pid, lease_expires_at)
                          VALUES ('gone', 1, now() - interval '1 second') RETURNING id)
            UPDATE lineup_jobs SET state = 'running', claims = 1, claimed_by = (SELECT id FROM dead),
                interruptions = CASE name WHEN 'poison' THEN 2 ELSE 0 END
            """)
        let harness = try harness(database) { $0.flushesWhenIdle = true; $0.maxInterruptions = 2 }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let report = try await events.acknowledged("survivor")
        #expect(report.interruptions == 1)
        #expect(try harness.rowsOnDisk() == 2)
        #expect(
            try database.psql("SELECT state, interruptions, reason FROM lineup_jobs WHERE name = 'poison'")
                == "failed|3|poison.job.json: poison: the daemons running it stopped 3 times (poisonThreshold 2); not run again")
        #expect(try database.psql("SELECT count(*) FROM lineup_daemons WHERE host = 'gone'") == "0")
        try await harness.stop(run)
    }

    @Test func aFailedAttemptIsRetriedAndCountedInTheTable() async throws {
        let database = try Database()
        let harness = try harness(database) { $0.flushesWhenIdle = true }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "fail-n-times", "failures": 2, "maxAttempts": 3])
        let report = try await events.acknowledged(entry.name)
        #expect(report.attempts == 3)
        #expect(try database.psql("SELECT state, failed_attempts FROM lineup_jobs") == "done|2")
        try await harness.stop(run)
    }

    @Test func aJobForLaterIsClaimedAtItsTime() async throws {
        let database = try Database()
        let harness = try harness(database) { $0.flushesWhenIdle = true; $0.rescanInterval = .milliseconds(100) }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let notBefore = Date().addingTimeInterval(1.5)
        let entry = try harness.spool.enqueue(JobFile(kind: "insert-rows", notBefore: notBefore, parameters: ["count": 1]))
        _ = try await events.acknowledged(entry.name)
        let claimedAt = try database.psql("SELECT extract(epoch FROM claimed_at) FROM lineup_jobs")
        #expect(try #require(Double(claimedAt)) >= notBefore.timeIntervalSince1970.rounded(.down))
        try await harness.stop(run)
    }
}
