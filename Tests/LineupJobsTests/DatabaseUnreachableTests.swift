import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import LineupTestSupport
import Testing

/// The database goes away while a job runs (a restart, a failover), on a server of the test's own
/// that it stops and starts again: the attempt that meets it is retried, not failed, and a job
/// that leaves `running` while it is away does so once it is back, never staying `running` under
/// this live daemon (whose lease keeps every other daemon from taking it back).
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabaseUnreachableTests {
    /// A lease longer than the server is away, and ticks of 200 ms: the daemon keeps its lease,
    /// and its ticks are what settles.
    private func harness(_ server: PostgresTestServer, _ database: String, maxAttempts: Int = 3) throws -> DaemonHarness {
        let (latch, running) = (Latch(), Latch())
        var registry = testRegistry(latch: latch, running: running)
        registry.register("wait-then-read", parameters: WaitThenReadTask.Parameters.self) { request, parameters in
            WaitThenReadTask(request: request, parameters: parameters, latch: latch, running: running)
        }
        // The whole backoff (no jitter): each retry waits half a second.
        return try DaemonHarness(latch: latch, running: running, hooks: JobDaemon.Hooks(randomJitter: { 1 }), registry: registry) {
            configuration in
            configuration.databaseURL = URL(string: server.url(database: database))!
            configuration.lease = .seconds(30)
            configuration.rescanInterval = .milliseconds(200)
            configuration.retry = RetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(500), maxDelay: .milliseconds(500))
        }
    }

    @Test func aJobThatFailsWhileTheServerIsAwayIsSettledAsFailedOnceItIsBack() async throws {
        let server = try PostgresTestServer.startPrivate()
        defer { try? server.stop() }
        let database = try server.createDatabase()
        let harness = try harness(server, database)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "wait-then-read", "fails": true])
        #expect(await harness.running.opened())

        try server.shutDown(mode: .fast)
        harness.latch.open()
        // The runner lets the job go at once; its row cannot be changed yet.
        let report = try await events.failed(entry.name)
        #expect(report.reason.contains("the input is not what it should be"))
        try server.restart(mode: .fast)

        // The transition was kept, and the next tick lands it.
        let deadline = ContinuousClock.now + .seconds(20)
        var state = ""
        while state != "failed|t", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            state = (try? server.psql("SELECT state, claimed_by IS NOT NULL FROM lineup_jobs", database: database)) ?? ""
        }
        #expect(state == "failed|t", "the job stayed \(state) after the server was back")
        #expect(
            try server.psql("SELECT reason LIKE '%the input is not what it should be%' FROM lineup_jobs", database: database) == "t")
        try await harness.stop(run)
    }

    @Test func anAttemptThatMeetsTheServerAwayIsRetriedAndTheJobDoneOnce() async throws {
        let server = try PostgresTestServer.startPrivate()
        defer { try? server.stop() }
        let database = try server.createDatabase()
        let harness = try harness(server, database, maxAttempts: 20)
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        let entry = try harness.enqueue(["kind": "wait-then-read"])
        #expect(await harness.running.opened())

        try server.shutDown(mode: .immediate)
        harness.latch.open()
        // Its read meets the closed server: a transient error, retried after the backoff.
        let retried = try await events.next {
            switch $0 {
            case let .retryScheduled(info, _, _), let .jobFailed(info, _): info.name == entry.name
            default: false
            }
        }
        guard case let .retryScheduled(_, _, error) = retried else {
            Issue.record("the attempt that met the server away was not retried: \(retried)")
            try? server.restart(mode: .fast)
            try await harness.stop(run)
            return
        }
        #expect(error.contains("postgres"))
        try server.restart(mode: .fast)

        try await events.finished(entry.name)
        var acknowledged: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while acknowledged.isEmpty, ContinuousClock.now < deadline {
            acknowledged = (try? await harness.daemon.flush())?.acknowledged ?? []
            if acknowledged.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(acknowledged == [entry.name])
        // Done once, by its second attempt or later (the failed one could not be counted in the
        // row while the server was away).
        #expect(try server.psql("SELECT state, count(*) FROM lineup_jobs GROUP BY state", database: database) == "done|1")
        #expect(try server.psql("SELECT (report::jsonb ->> 'attempts')::int > 1 FROM lineup_jobs", database: database) == "t")
        try await harness.stop(run)
    }
}
