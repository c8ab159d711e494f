import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// A flush whose COMMIT committed but whose answer never came: the connection was lost during
/// the COMMIT, as a server's restart or failover may cut it. Provoked for real, without a hook:
/// the server of the test's own waits at each COMMIT for a synchronous standby that never comes,
/// and the flush's backend is terminated while it waits. PostgreSQL then keeps the transaction,
/// committed locally, and the daemon sees its connection closed in the middle of the COMMIT.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabaseUnansweredCommitTests {
    @Test func aFlushThatCommittedWithoutAnswerIsTakenAsWrittenNotWrittenAgain() async throws {
        let server = try PostgresTestServer.startPrivate()
        defer { try? server.stop() }
        let database = try server.createDatabase()
        func psql(_ sql: String) throws -> String { try server.psql(sql, database: database) }
        let harness = try DaemonHarness { configuration in
            configuration.databaseURL = URL(string: server.url(database: database))!
            configuration.lease = .seconds(600)
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try await stoppingOnFailure(harness, run, server) {
            let entries = try (1...3).map { try harness.enqueue(["kind": "insert-rows", "count": .integer($0)]) }
            for entry in entries { try await events.finished(entry.name) }

            try Self.holdCommits(server)
            let unanswered = Task { try await harness.daemon.flush() }
            let deadline = ContinuousClock.now + .seconds(30)
            var terminated = ""
            while terminated != "t" {
                try #require(ContinuousClock.now < deadline, "no flush waited at its COMMIT")
                try await Task.sleep(for: .milliseconds(50))
                terminated = try psql(Self.terminateWaitingCommits)
            }
            await #expect(throws: (any Error).self, "the flush's connection was lost in its COMMIT") {
                try await unanswered.value
            }
            // What the server kept: the flush committed, rows and acknowledgement together.
            #expect(try psql("SELECT count(*) FROM \"TestRow\"") == "6")
            #expect(try psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state") == "done|3")
            try Self.letCommitsThrough(server)

            // The next flush asks before it writes: the jobs are acknowledged, the rows not written
            // twice, and the daemon goes on (no leaseLost stop, no unique-key failure).
            let retried = try await harness.daemon.flush()
            #expect(Set(retried.acknowledged) == Set(entries.map(\.name)))
            #expect(try psql("SELECT count(*) FROM \"TestRow\"") == "6")
            let nothingLeft = try await harness.daemon.flush()
            #expect(nothingLeft.rowsWritten == 0 && nothingLeft.acknowledged.isEmpty)

            let later = try harness.enqueue(["kind": "insert-rows", "count": .integer(4)])
            try await events.finished(later.name)
            let next = try await harness.daemon.flush()
            #expect(next.acknowledged == [later.name])
            #expect(try psql("SELECT count(*) FROM \"TestRow\"") == "10")
            #expect(try psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state") == "done|4")
        }
        try await harness.stop(run)
        #expect(try psql("SELECT count(*) FROM lineup_daemons") == "0")
    }

    /// A claim is one statement in a transaction of its own: when its connection is lost as it
    /// commits, the jobs it claimed run under this daemon in the table while the daemon holds
    /// none of them, and without the claim's stamp they would wait there for as long as its
    /// lease lives (for ever, as its heartbeats go on).
    @Test func jobsOfAClaimThatCommittedWithoutAnswerRunOnTheDaemonThatClaimedThem() async throws {
        let server = try PostgresTestServer.startPrivate()
        defer { try? server.stop() }
        let database = try server.createDatabase()
        func psql(_ sql: String) throws -> String { try server.psql(sql, database: database) }
        let harness = try DaemonHarness { configuration in
            configuration.databaseURL = URL(string: server.url(database: database))!
            configuration.lease = .seconds(600)
        }
        defer { harness.removeFiles() }
        let (_, run) = try await harness.start()
        try await stoppingOnFailure(harness, run, server) {
            // Held back until every COMMIT waits for the standby that never comes.
            _ = try psql("INSERT INTO lineup_paused (scope, name) VALUES ('kind', 'insert-rows')")
            let entry = try harness.enqueue(["kind": "insert-rows", "count": .integer(2)])
            let queued = ContinuousClock.now + .seconds(30)
            while try psql("SELECT state FROM lineup_jobs") != "queued" {
                try #require(ContinuousClock.now < queued, "the job never reached the table")
                try await Task.sleep(for: .milliseconds(50))
            }
            try Self.holdCommits(server)
            _ = try psql("SET synchronous_commit = local; DELETE FROM lineup_paused")
            let claimed = ContinuousClock.now + .seconds(30)
            var terminated = ""
            while terminated != "t" {
                try #require(ContinuousClock.now < claimed, "no claim waited at its COMMIT")
                // The daemon's ticks, which would wake its claims, wait at their heartbeat's
                // COMMIT now: notifications wake it instead, until its runner has read that the
                // kind is paused no more.
                _ = try psql("SET synchronous_commit = local; SELECT pg_notify('lineup_jobs', '')")
                try await Task.sleep(for: .milliseconds(50))
                terminated = try psql(Self.terminateWaitingCommits)
            }
            try Self.letCommitsThrough(server)
            // The claim committed: the table says the daemon runs the job.
            let daemonID = try psql("SELECT id FROM lineup_daemons")
            #expect(try psql("SELECT state, claimed_by FROM lineup_jobs") == "running|\(daemonID)")

            var acknowledged: [String] = []
            let done = ContinuousClock.now + .seconds(30)
            while !acknowledged.contains(entry.name) {
                let row = try psql("SELECT state, claimed_by, claims FROM lineup_jobs")
                try #require(ContinuousClock.now < done, "the job of the claim that lost its answer never ran: \(row)")
                try await Task.sleep(for: .milliseconds(100))
                acknowledged += try await harness.daemon.flush().acknowledged
            }
            #expect(try psql("SELECT state, claims, interruptions FROM lineup_jobs") == "done|1|0")
            #expect(try psql("SELECT count(*) FROM \"TestRow\"") == "2")
        }
        try await harness.stop(run)
    }

    /// Terminates the backends whose COMMIT waits for the synchronous standby; prints `t` if
    /// there was one. Other statements that wait (a heartbeat's UPDATE) go on waiting.
    private static let terminateWaitingCommits = """
        SELECT coalesce(bool_or(pg_terminate_backend(pid)), false) FROM pg_stat_activity
        WHERE wait_event = 'SyncRep' AND query = 'COMMIT'
        """

    /// From here on every COMMIT that wrote something waits for a synchronous standby named
    /// nowhere, until ``letCommitsThrough(_:)``.
    private static func holdCommits(_ server: PostgresTestServer) throws {
        _ = try server.psql("ALTER SYSTEM SET synchronous_standby_names = 'a_standby_that_never_comes'", database: "postgres")
        _ = try server.psql("SELECT pg_reload_conf()", database: "postgres")
    }

    private static func letCommitsThrough(_ server: PostgresTestServer) throws {
        _ = try server.psql("ALTER SYSTEM RESET synchronous_standby_names", database: "postgres")
        _ = try server.psql("SELECT pg_reload_conf()", database: "postgres")
    }

    /// Runs `body`; if it throws, lets COMMITs through again and stops the daemon before the
    /// server goes (the test's defers): a daemon stops after its tick, which may wait at its
    /// heartbeat's COMMIT.
    private func stoppingOnFailure(
        _ harness: DaemonHarness, _ run: Task<Void, any Error>, _ server: PostgresTestServer,
        _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
        } catch {
            try? Self.letCommitsThrough(server)
            try? await harness.stop(run)
            throw error
        }
    }
}
