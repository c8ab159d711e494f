import Foundation
import LineupPostgres
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// The jobs table with a long history (issue 35, item 1): the statements that daemons run for
/// every job and on every tick go through indexes, never through the whole table, and pruning
/// deletes in bounded batches that claims never wait for.
///
/// The plans are PostgreSQL's own (`EXPLAIN` of each statement as the daemons run it, with the
/// parameters bound), on a table large enough that reading it whole would cost the planner more
/// than its indexes, with the statistics of `ANALYZE`. Statements whose plan reads the jobs
/// table whole run in time proportional to its history: at ten million done rows, seconds for
/// each claim.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .serialized)
struct JobTablePlanTests {
    /// Filled once for the suite's plan tests: filling takes seconds.
    static let history = Result { try History() }

    /// A database with a history: queued jobs (some due later, some of another priority, some
    /// waiting for others through `after`), done and failed jobs, and a daemon's running ones.
    final class History: Sendable {
        static let queued = 100_000
        static let done = 300_000
        let server: PostgresTestServer
        let name: String

        init() throws {
            server = try PostgresTestServer.shared()
            name = try server.createDatabase()
            // The tables as daemons make them: the migrations, indexes included.
            let jobs = try JobDatabase(url: URL(string: server.url(database: name))!, logger: Logger(label: "test"))
            jobs.close()
            _ = try server.psql(
                """
                INSERT INTO lineup_daemons (host, pid, lease_expires_at) VALUES ('test', 1, now() + interval '1 hour');
                INSERT INTO lineup_jobs (name, job_id, kind, contents, state, not_before, priority, enqueued_at)
                    SELECT 'queued-' || g, 'queued-' || g, 'insert-rows', '\\x7b7d', 'queued',
                        now() - interval '1 hour' + (g % 7200) * interval '1 second', 3 + g % 4,
                        now() - interval '2 hours'
                    FROM generate_series(1, \(Self.queued)) AS g;
                INSERT INTO lineup_jobs (name, job_id, kind, contents, state, finished_at, report, claims)
                    SELECT 'done-' || g, 'done-' || g, 'insert-rows', '\\x7b7d', 'done',
                        now() - g * interval '1 second', '{"kind":"insert-rows"}', 1
                    FROM generate_series(1, \(Self.done)) AS g;
                INSERT INTO lineup_jobs (name, job_id, kind, contents, state, finished_at, reason)
                    SELECT 'failed-' || g, 'failed-' || g, 'insert-rows', '\\x7b7d', 'failed', now(), 'broken'
                    FROM generate_series(1, 1000) AS g;
                INSERT INTO lineup_jobs (name, job_id, kind, contents, state, claimed_by, claimed_at, claims)
                    SELECT 'running-' || g, 'running-' || g, 'insert-rows', '\\x7b7d', 'running', 1, now(), 1
                    FROM generate_series(1, 50) AS g;
                INSERT INTO lineup_jobs (name, job_id, kind, contents, state, after_ids, enqueued_at)
                    SELECT 'waiting-' || g, 'waiting-' || g, 'insert-rows', '\\x7b7d', 'queued',
                        ARRAY['done-' || g, 'queued-' || g], now() - interval '2 hours'
                    FROM generate_series(1, 20) AS g;
                ANALYZE lineup_jobs;
                """, database: name)
        }

        deinit { try? server.dropDatabase(name) }

        /// PostgreSQL's plan for `sql` with `parameters` bound (SQL literals, each cast to its
        /// type), as the daemons' driver has it planned: the parameters' values known.
        func plan(of sql: String, parameters: [(literal: String, type: String)]) throws -> Plan {
            let types = parameters.map(\.type).joined(separator: ", ")
            let values = parameters.map { "\($0.literal)::\($0.type)" }.joined(separator: ", ")
            let json = try server.psql(
                """
                PREPARE statement (\(types)) AS \(sql);
                EXPLAIN (FORMAT JSON) EXECUTE statement (\(values));
                """, database: name)
            let explained = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            return Plan(try #require(explained.first?["Plan"] as? [String: Any]))
        }
    }

    /// A plan's nodes, flattened.
    struct Plan: CustomStringConvertible {
        struct Node {
            let type: String
            let relation: String?
            let index: String?
        }

        let nodes: [Node]

        init(_ root: [String: Any]) {
            var nodes: [Node] = []
            func visit(_ node: [String: Any]) {
                nodes.append(
                    Node(
                        type: node["Node Type"] as? String ?? "?", relation: node["Relation Name"] as? String,
                        index: node["Index Name"] as? String))
                for child in node["Plans"] as? [[String: Any]] ?? [] { visit(child) }
            }
            visit(root)
            self.nodes = nodes
        }

        /// The nodes that read the jobs table whole.
        var scansOfTheJobsTable: [Node] {
            nodes.filter { $0.type == "Seq Scan" && $0.relation == "lineup_jobs" }
        }

        var indexes: Set<String> { Set(nodes.compactMap(\.index)) }

        var description: String {
            nodes.map { [$0.type, $0.relation, $0.index].compactMap { $0 }.joined(separator: " ") }.joined(separator: " / ")
        }
    }

    private func history() throws -> History {
        try Self.history.get()
    }

    @Test("the claim reads the due jobs' index from its first entry, whatever the backlog")
    func claim() throws {
        let plan = try history().plan(
            of: JobTableStatements.claim(),
            parameters: [("1", "bigint"), ("16", "bigint"), ("'{}'", "text"), ("1764000000000000", "bigint")])
        #expect(plan.scansOfTheJobsTable.isEmpty, "\(plan)")
        #expect(plan.indexes.contains("lineup_jobs_due"), "\(plan)")
        #expect(plan.indexes.contains("lineup_jobs_pkey"), "\(plan)")
        // A job's `after` ids are looked up with `=`, which the partial index of ids takes.
        #expect(plan.indexes.contains("lineup_jobs_job_id"), "\(plan)")
    }

    @Test("the flush's acknowledgement finds its jobs by their rows or among the running jobs")
    func acknowledgement() throws {
        let acknowledged = (1...16).map { #"{"id": \#($0), "claims": 1, "report": "{}"}"# }.joined(separator: ", ")
        let plan = try history().plan(
            of: JobTableStatements.acknowledgement, parameters: [("'[\(acknowledged)]'", "text"), ("1", "bigint")])
        #expect(plan.scansOfTheJobsTable.isEmpty, "\(plan)")
        #expect(!plan.indexes.isEmpty && plan.indexes.isSubset(of: Self.claimedJobIndexes), "\(plan)")
        // The flush wakes the daemons only if a queued job waits for one of those it acknowledged.
        let ids = (1...16).map { "\"done-\($0)\"" }.joined(separator: ", ")
        let notification = try history().plan(of: JobTableStatements.notifyWaiters, parameters: [("'[\(ids)]'", "text")])
        #expect(notification.scansOfTheJobsTable.isEmpty, "\(notification)")
        #expect(notification.indexes == ["lineup_jobs_waiting"], "\(notification)")
    }

    /// How a claimed job is found: by its row, or among the few running jobs.
    static let claimedJobIndexes: Set = ["lineup_jobs_pkey", "lineup_jobs_running"]

    @Test("settling one claimed job (a failure, a retry, a job given back) finds it by its row or among the running jobs")
    func settle() throws {
        let plan = try history().plan(
            of: JobTableStatements.settle("failed_attempts = failed_attempts + 1"),
            parameters: [("1", "bigint"), ("1", "bigint"), ("1", "bigint")])
        #expect(plan.scansOfTheJobsTable.isEmpty, "\(plan)")
        #expect(!plan.indexes.isEmpty && plan.indexes.isSubset(of: Self.claimedJobIndexes), "\(plan)")
    }

    @Test("a tick's statements read the running and the waiting jobs' indexes only")
    func tick() throws {
        let history = try history()
        let statements: [(name: String, sql: String, parameters: [(literal: String, type: String)])] = [
            ("rescue", JobTableStatements.rescue, [("3", "bigint")]),
            // PREPARE needs a parameter list: a statement without parameters gets one it ignores.
            ("dependency cycles", JobTableStatements.dependencyCycles, [("1", "bigint")]),
            ("unknown dependencies", JobTableStatements.unknownDependencies, [("3600", "float8")]),
            ("cancellation requests", JobTableStatements.cancellationRequests, [("1", "bigint")]),
            // After a claim or a flush that threw: what it did, asked before anything runs again.
            ("jobs of a claim", JobTableStatements.jobsOfClaim, [("1", "bigint"), ("1764000000000000", "bigint")]),
            ("acknowledged jobs done", JobTableStatements.acknowledgedJobsDone, [("'[{\"id\": 1, \"claims\": 1}]'", "text"), ("1", "bigint")]),
        ]
        for statement in statements {
            let plan = try history.plan(of: statement.sql, parameters: statement.parameters)
            #expect(plan.scansOfTheJobsTable.isEmpty, "\(statement.name): \(plan)")
        }
    }

    @Test("a prune's batch reads the done jobs from the oldest, and the waiting jobs' index once")
    func pruneBatch() throws {
        let plan = try history().plan(
            of: JobTableStatements.prune,
            parameters: [(String(Date().timeIntervalSince1970 - 3_600), "float8"), ("1000", "bigint")])
        #expect(plan.scansOfTheJobsTable.isEmpty, "\(plan)")
        #expect(plan.indexes.contains("lineup_jobs_done_finished"), "\(plan)")
        #expect(plan.indexes.contains("lineup_jobs_waiting"), "\(plan)")
    }

    // MARK: - Pruning in batches

    /// A database of its own with `old` done jobs finished two days ago, a queued job that waits
    /// for one of them, and `queued` queued jobs.
    private func databaseWithOldDoneJobs(old: Int, queued: Int) throws -> (server: PostgresTestServer, name: String, url: URL) {
        let server = try PostgresTestServer.shared()
        let name = try server.createDatabase()
        let url = URL(string: server.url(database: name))!
        try JobDatabase(url: url, logger: Logger(label: "test")).close()
        _ = try server.psql(
            """
            INSERT INTO lineup_jobs (name, job_id, kind, contents, state, finished_at)
                SELECT 'old-' || g, 'old-' || g, 'insert-rows', '\\x7b7d', 'done', now() - interval '2 days' - g * interval '1 second'
                FROM generate_series(1, \(old)) AS g;
            INSERT INTO lineup_jobs (name, kind, contents, after_ids) VALUES ('waiting', 'insert-rows', '\\x7b7d', ARRAY['old-7']);
            INSERT INTO lineup_jobs (name, kind, contents) SELECT 'queued-' || g, 'insert-rows', '\\x7b7d' FROM generate_series(1, \(queued)) AS g;
            """, database: name)
        return (server, name, url)
    }

    @Test("a prune deletes every old done job in batches, but those that waiting jobs name")
    func pruneDeletesInBatches() throws {
        let (server, name, url) = try databaseWithOldDoneJobs(old: 2_500, queued: 0)
        defer { try? server.dropDatabase(name) }
        let session = try PostgresSession.connect(to: url, logger: Logger(label: "test"))
        defer { session.close() }
        let cutoff = StoreValue.real(Date().addingTimeInterval(-86_400).timeIntervalSince1970)
        // One batch deletes at most its size, the oldest first.
        #expect(try session.execute(JobTableStatements.prune, [cutoff, .integer(1_000)]) == 1_000)
        #expect(
            try server.psql(
                "SELECT count(*), count(*) FILTER (WHERE substr(name, 5)::int > 1500) FROM lineup_jobs WHERE state = 'done'",
                database: name) == "1500|0")
        let jobs = try JobDatabase(url: url, logger: Logger(label: "test"))
        defer { jobs.close() }
        #expect(try jobs.pruneDone(finishedBefore: Date().addingTimeInterval(-86_400), batchSize: 300) == 1_499)
        #expect(try server.psql("SELECT name FROM lineup_jobs WHERE state = 'done'", database: name) == "old-7")
    }

    @Test("a claim does not wait for a prune's batch, and two prunes skip each other's rows")
    func claimsDoNotWaitForAPrune() throws {
        let (server, name, url) = try databaseWithOldDoneJobs(old: 500, queued: 10)
        defer { try? server.dropDatabase(name) }
        let pruner = try PostgresSession.connect(to: url, logger: Logger(label: "test"))
        let other = try PostgresSession.connect(to: url, logger: Logger(label: "test"))
        defer {
            pruner.close()
            other.close()
        }
        _ = try other.execute("SET statement_timeout = '5s'")
        let cutoff = StoreValue.real(Date().addingTimeInterval(-86_400).timeIntervalSince1970)
        try pruner.transaction {
            // The batch is deleted and its rows locked, not committed.
            #expect(try pruner.execute(JobTableStatements.prune, [cutoff, .integer(200)]) == 200)
            let claimed = try other.rows(JobTableStatements.claim(), [.integer(1), .integer(4), .text("{}"), .integer(1_764_000_000_000_000)])
            #expect(claimed.count == 4)
            // The second prune takes the next rows, not waiting for the first's.
            #expect(try other.execute(JobTableStatements.prune, [cutoff, .integer(1_000)]) == 299)
        }
        #expect(try server.psql("SELECT count(*) FROM lineup_jobs WHERE state = 'done'", database: name) == "1")
    }
}
