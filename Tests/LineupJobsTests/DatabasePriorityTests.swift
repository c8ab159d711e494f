import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// `priority` and `uniqueFor` in a PostgreSQL job table: claims by priority through the due index,
/// and a unique key refused while a job holding it was done within the period. Against a real
/// server (`PostgresTestServer`).
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabasePriorityTests {
    typealias Database = DatabaseJobsTests.Database

    private func submission(_ name: String, _ json: String) -> JobDatabase.Submission {
        JobDatabase.Submission(name: name, contents: Data(json.utf8))
    }

    @Test func jobsAreClaimedByPriorityThenInTheOrderTheyCame() async throws {
        let database = try Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        let priorities: [(String, String)] = [
            ("a", ""), ("b", #", "priority": 9"#), ("c", #", "priority": 0"#), ("d", ""), ("e", #", "priority": 0"#),
            ("f", #", "priority": 3"#),
        ]
        for (name, priority) in priorities {
            // One transaction each, so that each has its own `not_before` (now()).
            try jobs.enqueue([submission(name, #"{"kind": "insert-rows", "id": "\#(name)", "count": 1\#(priority)}"#)])
        }
        #expect(try database.psql("SELECT name, priority FROM lineup_jobs ORDER BY id") == "a|5\nb|9\nc|0\nd|5\ne|0\nf|3")

        let harness = try DaemonHarness { configuration in
            configuration.databaseURL = database.url
            configuration.maxConcurrentJobs = 1
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        for (name, _) in priorities {
            try await events.finished(name)
        }
        let started = events.seen.compactMap { if case let .jobStarted(info) = $0 { info.name } else { nil } }
        #expect(started == ["c", "e", "f", "a", "d", "b"])
        try await harness.stop(run)
    }

    @Test func theClaimReadsTheDueIndexInItsOrderWithoutSorting() throws {
        let database = try Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        try jobs.enqueue((0..<200).map { submission("j\($0)", #"{"kind": "insert-rows", "count": 1, "priority": \#($0 % 10)}"#) })
        _ = try database.psql("ANALYZE lineup_jobs")
        let plan = try database.psql(
            """
            SET enable_seqscan = off;
            EXPLAIN SELECT id FROM lineup_jobs AS c WHERE state = 'queued' AND not_before <= now()
                ORDER BY priority, not_before, id LIMIT 32 FOR UPDATE SKIP LOCKED
            """)
        #expect(plan.contains("Index Scan using lineup_jobs_due"), "\(plan)")
        #expect(!plan.contains("Sort"), "\(plan)")
    }

    @Test func aJobWithUniqueForIsRefusedWhileAJobOfItsKeyWasDoneWithinThePeriod() throws {
        let database = try Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        func job(_ name: String, uniqueFor: String? = nil) -> JobDatabase.Submission {
            let period = uniqueFor.map { #", "uniqueFor": "\#($0)""# } ?? ""
            return submission(name, #"{"kind": "insert-rows", "count": 1, "uniqueKey": "nightly"\#(period)}"#)
        }
        func state(_ name: String) throws -> String {
            try database.psql("SELECT state || '|' || coalesce(reason, '') FROM lineup_jobs WHERE name = '\(name)'")
        }
        try jobs.enqueue([job("first")])
        _ = try database.psql("UPDATE lineup_jobs SET state = 'done', finished_at = now() - interval '30 minutes' WHERE name = 'first'")

        try jobs.enqueue([job("hourly", uniqueFor: "1h")])
        #expect(try state("hourly") == "failed|hourly.job.json: duplicate job: refused: job first holds uniqueKey `nightly`: it was done within uniqueFor (3600 s)")
        // Without uniqueFor, a done job holds no key; with a period shorter than its age, neither.
        try jobs.enqueue([job("plain")])
        #expect(try state("plain") == "queued|")
        _ = try database.psql("UPDATE lineup_jobs SET state = 'done', finished_at = now() - interval '2 hours' WHERE name = 'plain'")
        try jobs.enqueue([job("ten-minutes", uniqueFor: "10m")])
        #expect(try state("ten-minutes") == "queued|")
        // A queued job holds it for a job with uniqueFor as for any other.
        try jobs.enqueue([job("daily", uniqueFor: "1d")])
        #expect(try state("daily").hasPrefix("failed|daily.job.json: duplicate job: refused: job ten-minutes holds uniqueKey `nightly` and is queued or running"))
        // A failed job holds no key, whatever its age.
        _ = try database.psql("UPDATE lineup_jobs SET state = 'failed', finished_at = now() WHERE name = 'ten-minutes'")
        _ = try database.psql("DELETE FROM lineup_jobs WHERE name IN ('first')")
        try jobs.enqueue([job("after-failure", uniqueFor: "1d")])
        #expect(try state("after-failure").hasPrefix("failed|after-failure.job.json: duplicate job: refused: job plain holds uniqueKey `nightly`: it was done within uniqueFor (86400 s)"))
    }

    @Test func aJobRefusedByUniqueForInTheDatabaseFailsThroughADaemon() async throws {
        let database = try Database()
        let harness = try DaemonHarness { $0.databaseURL = database.url }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let first = try harness.spool.enqueue(JobFile(data: Data(#"{"kind": "insert-rows", "count": 1, "uniqueKey": "k"}"#.utf8)))
        try await events.finished(first.name)
        _ = try await harness.daemon.flush()
        try await database.waitUntil(.done, count: 1)
        try harness.spool.enqueue(JobFile(data: Data(#"{"kind": "insert-rows", "count": 1, "uniqueKey": "k", "uniqueFor": "1h"}"#.utf8)))
        try await database.waitUntil(.failed, count: 1)
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 1))
        #expect(try database.psql("SELECT reason FROM lineup_jobs WHERE state = 'failed'").contains("it was done within uniqueFor (3600 s)"))
        try await harness.stop(run)
    }

    @Test func version3GivesTheRowsThereTheDefaultPriorityAndTheDueIndexLeadsWithIt() throws {
        let database = try Database()
        let session = try PostgresSession.connect(to: database.url, logger: Logger(label: "test"))
        defer { session.close() }
        _ = try session.transaction { try JobTableMigrations.migrate(session, to: 2, logger: Logger(label: "test")) }
        let contents = try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded()
        _ = try database.psql(
            "INSERT INTO lineup_jobs (name, contents) VALUES ('old', decode('\(contents.map { String(format: "%02x", $0) }.joined())', 'hex'))")
        let plan = try JobTableMigrations.plan(of: session)
        #expect(plan.migrations.map(\.version).first == 3)
        _ = try session.transaction { try JobTableMigrations.migrate(session, to: 3, logger: Logger(label: "test")) }
        #expect(try database.psql("SELECT version, name FROM lineup_migrations WHERE version = 3") == "3|job priorities and unique periods")
        #expect(try database.psql("SELECT priority FROM lineup_jobs WHERE name = 'old'") == "5")
        #expect(
            try database.psql("SELECT indexdef FROM pg_indexes WHERE indexname = 'lineup_jobs_due'")
                .contains("(priority, not_before, id) WHERE (state = 'queued'::text)"))
        #expect(throws: (any Error).self) { try database.psql("UPDATE lineup_jobs SET priority = 10") }
    }
}
