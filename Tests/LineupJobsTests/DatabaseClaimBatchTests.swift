import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupTestSupport
import Testing

/// How a daemon claims from a database's jobs table: a statement is a round trip that the
/// runner's coordinator waits for, so one statement takes the room of the claim window, and the
/// daemon asks again only once half the window is free (`JobStorage.claimRoundTrip`).
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabaseClaimBatchTests {
    /// `now()` is the time its transaction began, so the jobs that one claim statement took
    /// share their `claimed_at`, and jobs of two statements do not.
    @Test("a daemon claims the room of its window in one statement, not a job or two a statement")
    func oneStatementFillsTheWindow() async throws {
        let database = try DatabaseJobsTests.Database()
        let jobs = try database.jobs()
        try jobs.enqueue(
            try (1...12).map { number in
                JobDatabase.Submission(name: "job-\(number)", contents: try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded())
            })
        jobs.close()
        let harness = try DaemonHarness { configuration in
            configuration.databaseURL = database.url
            configuration.lease = .seconds(600)
            configuration.claimWindow = 8
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        for number in 1...12 {
            try await events.finished("job-\(number)")
        }
        _ = try await harness.daemon.flush()
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 12, failed: 0))
        // The first eight: one statement at start, when the window was empty. The last four
        // came once half the window was free, in one statement or (as jobs finished one by one
        // while it ran) a few; never one a job.
        let statements = try database.psql("SELECT count(*) FROM lineup_jobs GROUP BY claimed_at ORDER BY min(id)")
            .split(separator: "\n").compactMap { Int($0) }
        #expect(statements.first == 8, "jobs claimed by each statement: \(statements)")
        #expect(statements.reduce(0, +) == 12 && statements.count <= 3, "jobs claimed by each statement: \(statements)")
        try await harness.stop(run)
    }

    /// Jobs that take less than a claim's round trip widen a window that is not configured (see
    /// `ClaimWindow`), and a configured one holds.
    @Test("short jobs widen a window left to the daemon; a configured window stays", arguments: [nil, 8] as [Int?])
    func shortJobsWidenTheWindow(configured: Int?) async throws {
        let database = try DatabaseJobsTests.Database()
        let jobs = try database.jobs()
        let count = 500
        try jobs.enqueue(
            try (1...count).map { number in
                JobDatabase.Submission(name: "job-\(number)", contents: try JobFile(kind: "insert-rows", parameters: ["count": 0]).encoded())
            })
        jobs.close()
        let harness = try DaemonHarness { configuration in
            configuration.databaseURL = database.url
            configuration.lease = .seconds(600)
            configuration.claimWindow = configured
            configuration.flushesWhenIdle = true
            configuration.flushJobLimit = DaemonConfiguration.defaultFlushJobLimit
        }
        defer { harness.removeFiles() }
        let least = harness.configuration.effectiveClaimWindow
        let (_, run) = try await harness.start()
        // Most of the suite's time limit: a loaded machine runs a window of 8 slowly.
        try await database.waitUntil(.done, count: count, within: .seconds(100))
        try #require(try database.counts().done == count, "the jobs were not all done within 100 s")
        let statements = try database.psql("SELECT count(*) FROM lineup_jobs WHERE claimed_at IS NOT NULL GROUP BY claimed_at")
            .split(separator: "\n").compactMap { Int($0) }
        #expect(statements.reduce(0, +) == count)
        if configured == nil {
            // Its least window is what a slow job's daemon holds; jobs of well under a
            // millisecond start several a round trip, and the window widens past it.
            #expect(statements.max() ?? 0 > least, "the most jobs one statement claimed, of \(statements.count): \(statements.max() ?? 0)")
        } else {
            #expect(statements.max() ?? 0 <= least, "the most jobs one statement claimed, of \(statements.count): \(statements.max() ?? 0)")
        }
        try await harness.stop(run)
    }
}
