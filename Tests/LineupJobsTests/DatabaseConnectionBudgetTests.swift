import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupTestSupport
import Testing

/// `databaseConnections` bounds what a daemon opens to its database, as the server counts them:
/// every connection of the daemon carries the URL's `application_name`, so `pg_stat_activity`
/// tells its connections from the test's own.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct DatabaseConnectionBudgetTests {
    @Test("a daemon with databaseConnections 8 never holds more than 8 connections, and still does every job")
    func theServerNeverSeesMoreThanTheBound() async throws {
        let database = try DatabaseJobsTests.Database()
        let applicationName = "lineup_budget_\(UUID().uuidString.prefix(8).lowercased())"
        let daemonURL = URL(string: database.url.absoluteString + "&application_name=\(applicationName)")!
        let jobCount = 60
        let jobs = try database.jobs()
        try jobs.enqueue(
            try (1...jobCount).map { number in
                JobDatabase.Submission(name: "job-\(number)", contents: try JobFile(kind: "insert-rows", parameters: ["count": 20]).encoded())
            })
        jobs.close()
        let harness = try DaemonHarness { configuration in
            configuration.databaseURL = daemonURL
            configuration.lease = .seconds(600)
            configuration.maxConcurrentJobs = 2
            configuration.databaseConnections = 8
            // Flushes while jobs run, so that the writer and the key blocks' connection are in use
            // beside the readers and the jobs' connections.
            configuration.flushesWhenIdle = true
            configuration.flushJobLimit = 5
        }
        defer { harness.removeFiles() }
        #expect(harness.configuration.databaseConnectionBudget.total == 8)

        let (server, databaseName) = (database.server, database.name)
        let sampling = Task { () throws -> Int in
            var most = 0
            while !Task.isCancelled {
                let open = try server.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(applicationName)'", database: databaseName)
                most = max(most, Int(open) ?? 0)
                try? await Task.sleep(for: .milliseconds(5))
            }
            return most
        }
        let (_, run) = try await harness.start()
        try await database.waitUntil(.done, count: jobCount)
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: jobCount, failed: 0))
        #expect(try harness.rowsOnDisk() == jobCount * 20)
        try await harness.stop(run)
        sampling.cancel()
        let most = try await sampling.value
        // The writer, the main context's reader, the jobs' connection and the listener are open
        // from the start: the name reached every connection the daemon made.
        #expect(most >= 4, "the daemon's connections were not seen by their application_name")
        #expect(most <= 8, "the server saw \(most) connections of a daemon bounded to 8")
    }
}
