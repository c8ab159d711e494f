import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupTestSupport
import Logging
import Testing

/// Pauses and limits on a PostgreSQL jobs table: the claim statement itself leaves paused jobs
/// and jobs over a limit queued, for every daemon that shares the table.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabasePauseAndLimitTests {
    typealias Database = DatabaseJobsTests.Database

    private func harness(
        _ database: Database, root: URL? = nil, registry: JobRegistry? = nil, configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) throws -> DaemonHarness {
        try DaemonHarness(root: root, registry: registry) { configuration in
            configuration.databaseURL = database.url
            // A lease no test outlives by accident: the whole parallel run on two cores has been
            // seen to hold a daemon's heartbeats back past the default 30 s, and the other daemon
            // then took its jobs back. Tests of expiry set their own lease or expire it in SQL.
            configuration.lease = .seconds(600)
            configuration.flushesWhenIdle = true
            configure(&configuration)
        }
    }

    @Test func aPausedKindStaysQueuedInTheTableAcrossARestartAndRunsOnceResumed() async throws {
        let database = try Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        #expect(try jobs.pause(.kind("insert-rows")) == true)
        #expect(try jobs.pause(.kind("insert-rows")) == false)
        let first = try harness(database)
        defer { first.removeFiles() }
        var (events, run) = try await first.start()
        let paused = try first.enqueue(["kind": "insert-rows", "count": 1])
        let other = try first.enqueue(["kind": "upsert-keyed", "key": "a", "value": 1])
        _ = try await events.acknowledged(other.name)
        #expect(try database.psql("SELECT state FROM lineup_jobs WHERE name = '\(paused.name)'") == "queued")
        try await first.stop(run)

        let second = try harness(database)
        defer { second.removeFiles() }
        (events, run) = try await second.start()
        let later = try second.enqueue(["kind": "upsert-keyed", "key": "b", "value": 2])
        _ = try await events.acknowledged(later.name)
        #expect(try database.psql("SELECT state FROM lineup_jobs WHERE name = '\(paused.name)'") == "queued")
        try await Task.sleep(for: second.configuration.rescanInterval * 5)
        #expect(await second.daemon.status()?.paused == [.kind("insert-rows")])
        // Resumed by another process: its notification wakes the daemon.
        #expect(try jobs.resume(.kind("insert-rows")) == true)
        _ = try await events.acknowledged(paused.name)
        try await second.stop(run)
    }

    @Test func aPausedQueueIsLeftByTheClaimOfADaemonThatHasNotReadThePauseYet() async throws {
        let database = try Database()
        let harness = try harness(database) { configuration in
            configuration.queues = ["imports": .init(kinds: ["insert-rows"], concurrency: 1)]
            // Far longer than the test: the daemon's own reading of the paused list stays stale.
            configuration.rescanInterval = .seconds(3600)
        }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let jobs = try database.jobs()
        defer { jobs.close() }
        try jobs.pause(.queue("imports"))
        let held = try harness.enqueue(["kind": "insert-rows", "count": 1])
        let other = try harness.enqueue(["kind": "upsert-keyed", "key": "a", "value": 1])
        _ = try await events.acknowledged(other.name)
        #expect(try database.psql("SELECT state FROM lineup_jobs WHERE name = '\(held.name)'") == "queued")
        try jobs.resume(.queue("imports"))
        _ = try await events.acknowledged(held.name)
        try await harness.stop(run)
    }

    @Test func twoDaemonsOnOneDatabaseNeverRunMoreThanAConcurrencyLimitAtOnce() async throws {
        let database = try Database()
        let probe = ConcurrencyProbe()
        let registry = probe.registering(in: testRegistry(latch: Latch(), running: Latch()))
        func limited(_ configuration: inout DaemonConfiguration) {
            configuration.maxConcurrentJobs = 4
            configuration.limits = [.kind("probe"): JobLimit(maxRunning: 2)]
        }
        let first = try harness(database, registry: registry, configure: limited)
        defer { first.removeFiles() }
        let second = try harness(database, registry: registry, configure: limited)
        defer { second.removeFiles() }
        // Jobs in the table before either daemon starts: both claim at once from the first moment.
        let jobs = try database.jobs()
        defer { jobs.close() }
        // Twelve: enough for each daemon to meet the limit many times over. Two at a time they
        // take 1.8 s alone; beside the whole suite on two cores, 24 took more than a minute.
        try jobs.enqueue((0..<12).map { JobDatabase.Submission(name: "probe-\($0)", contents: Data(#"{"kind": "probe"}"#.utf8)) })
        let (_, firstRun) = try await first.start()
        let (_, secondRun) = try await second.start()
        // The table's own count, sampled until every job is done.
        var mostClaimed = 0
        let deadline = ContinuousClock.now + .seconds(75)
        while try database.counts()[.done] != 12, ContinuousClock.now < deadline {
            mostClaimed = max(mostClaimed, Int(try database.psql("SELECT count(*) FROM lineup_jobs WHERE state = 'running'")) ?? 0)
            // Each look spawns psql from a thread of the shared pool: a few a second, not hundreds.
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 12, failed: 0))
        #expect(probe.runs == 12)
        #expect(probe.most <= 2, "eight slots on two daemons, a limit of two across both")
        #expect(mostClaimed <= 2, "never more than two claimed at once in the table")
        // Which daemon claims each job is a race (a loaded machine may let one take them all): the
        // limit is what holds across both.
        try await first.stop(firstRun)
        try await second.stop(secondRun)
    }

    @Test func aRateLimitAcrossDaemonsHoldsJobsBackAndReleasesThemTheNextPeriod() async throws {
        let database = try Database()
        func limited(_ configuration: inout DaemonConfiguration) {
            // A period long enough that a loaded machine finishes the first pair well within it.
            configuration.limits = [.kind("insert-rows"): JobLimit(rate: .init(jobs: 2, per: .seconds(10)))]
        }
        let first = try harness(database, configure: limited)
        defer { first.removeFiles() }
        let second = try harness(database, configure: limited)
        defer { second.removeFiles() }
        let (_, firstRun) = try await first.start()
        let (_, secondRun) = try await second.start()
        let jobs = try database.jobs()
        defer { jobs.close() }
        try jobs.enqueue((1...4).map { JobDatabase.Submission(name: "rated-\($0)", contents: Data(#"{"kind": "insert-rows", "count": 1}"#.utf8)) })
        try await database.waitUntil(.done, count: 2)
        // While the first period lasts, the other two wait and the status says so. A machine
        // loaded enough to let the period pass first skips this look; the claim times below
        // hold either way.
        let firstPeriodLasts = try database.psql(
            "SELECT now() - min(claimed_at) < interval '8 seconds' FROM lineup_jobs WHERE claimed_at IS NOT NULL") == "t"
        if firstPeriodLasts {
            #expect(try database.counts() == JobCounts(queued: 2, running: 0, done: 2, failed: 0), "two a period, between both daemons")
            var limit = try #require(await first.daemon.status()?.limits?.first)
            let holdingDeadline = ContinuousClock.now + .seconds(5)
            while !limit.holdingBack, ContinuousClock.now < holdingDeadline {
                try await Task.sleep(for: first.configuration.rescanInterval * 5)
                limit = try #require(await first.daemon.status()?.limits?.first)
            }
            let periodStillLasts = try database.psql(
                "SELECT now() - min(claimed_at) < interval '9 seconds' FROM lineup_jobs WHERE claimed_at IS NOT NULL") == "t"
            #expect(limit.rate == 2 && (limit.holdingBack || !periodStillLasts), "\(limit)")
        }
        try await database.waitUntil(.done, count: 4)
        #expect(try database.counts()[.done] == 4)
        // Never more than two claims in one period, across both daemons: the second pair was
        // claimed a period after the first.
        #expect(
            try database.psql(
                "SELECT extract(epoch FROM min(claimed_at) FILTER (WHERE name IN ('rated-3', 'rated-4')) - min(claimed_at) FILTER (WHERE name IN ('rated-1', 'rated-2'))) >= 9.5 FROM lineup_jobs")
                == "t")
        try await first.stop(firstRun)
        try await second.stop(secondRun)
    }
}
