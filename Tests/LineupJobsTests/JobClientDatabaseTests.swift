import Foundation
import LineupJobs
import LineupPostgres
import LineupSpool
import LineupTestSupport
import Testing

/// `JobClient` into a database's jobs table: the same typed jobs as into a spool, each batch in
/// one transaction, and the table's own checks (unique keys) applied. Against a real server.
@Suite(.enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"))
struct JobClientDatabaseTests {
    struct Statistics: Encodable, Sendable { let output: String }

    @Test func typedJobsGoIntoTheTableNamedByTheirIdWithTheirOptions() throws {
        let database = try DatabaseJobsTests.Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        let client = JobClient(destination: jobs)
        let first = try client.enqueue("statistics", Statistics(output: "a"), options: JobOptions(id: "stats-a", uniqueKey: "stats"))
        #expect(first == EnqueueReceipt(jobs: 1, location: jobs.location))
        // The same unique key while the first is queued: inserted as failed, naming the holder.
        try client.enqueue("statistics", Statistics(output: "b"), options: JobOptions(id: "stats-b", uniqueKey: "stats"))
        let rows = try database.psql("SELECT name, state, unique_key, convert_from(contents, 'UTF8')::jsonb->>'output' FROM lineup_jobs ORDER BY name")
        #expect(rows.split(separator: "\n") == ["stats-a|queued|stats|a", "stats-b|failed|stats|b"], "\(rows)")
        let reason = try database.psql("SELECT reason FROM lineup_jobs WHERE name = 'stats-b'")
        #expect(reason.contains("job stats-a holds uniqueKey `stats`"), "\(reason)")
    }

    @Test func aBatchIsInsertedInOneTransactionNamedByItsLines() throws {
        let database = try DatabaseJobsTests.Database()
        let jobs = try database.jobs()
        defer { jobs.close() }
        let batch = try (1...3).map { try JobFile(kind: "statistics", parameters: Statistics(output: "o\($0)")) }
        let receipt = try JobClient(destination: jobs).enqueue(contentsOf: batch, name: "nightly")
        #expect(receipt.jobs == 3)
        let rows = try database.psql("SELECT name, state FROM lineup_jobs ORDER BY name")
        #expect(rows.split(separator: "\n") == ["nightly.line1|queued", "nightly.line2|queued", "nightly.line3|queued"], "\(rows)")
    }
}
