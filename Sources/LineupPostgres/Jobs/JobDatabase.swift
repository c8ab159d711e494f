public import Foundation
public import LineupSpool
public import LineupJobs
import LineupStore
public import Logging

/// The jobs of daemons that share one PostgreSQL database (`lineupd --database`): the table
/// `lineup_jobs` beside the store's tables, and `lineup_daemons`, the daemons that hold claims,
/// each with a lease that its heartbeats renew.
///
/// A job's row goes through the states of ``LineupSpool/JobState``: queued (stored as
/// ``LineupSpool/JobState/columnValue``, as each state is) → running (claimed by one daemon with
/// `FOR UPDATE SKIP LOCKED`) → done, in the transaction of the flush that writes its rows, or
/// failed. It goes back to queued when its daemon gives it back at shutdown, or dies and its
/// lease runs out; a job whose daemons died under it more than `poisonThreshold` times fails
/// instead (poison).
///
/// Enqueueing inserts rows and notifies `lineup_jobs` in the same transaction, so listening
/// daemons claim at once; they also poll, in case a notification is lost with a connection.
///
/// What the spool checks when a daemon claims a job, the table checks where every daemon sees it:
/// - a job whose `after` names other jobs is claimed once each of them is settled, done or failed
///   (the daemon that claims it then runs it, or fails it); a cycle through `after`, or an id
///   that no job has after `dependencyWaitTimeout`, fails it at a daemon's tick;
/// - a job whose `uniqueKey` a queued or running job holds, or with `uniqueFor` a job done within
///   that period, is inserted as failed, with the holder named (one key's enqueuers take turns:
///   an advisory lock on the key);
/// - jobs are claimed by `priority` (0 first), then first in, first out (`not_before`, `id`).
public final class JobDatabase: Sendable {
    /// A job to insert: a job file's bytes, and the name it was enqueued under.
    public struct Submission: Sendable {
        /// The name the job is enqueued under, without `.job.json`: `lineup enqueue` uses its id
        /// or kind, a bulk file's lines are `<name>.line<n>`. It names the job in messages.
        public var name: String
        /// The job file's JSON, as it would lie in a spool.
        public var contents: Data
        /// A key that makes inserting the same job twice insert it once: a host's spool intake
        /// uses the job file's name in its `active/` (see `DatabaseIntake`). nil: always inserted.
        public var intakeKey: String?

        /// Makes a submission; without `intakeKey`, inserting it twice inserts two jobs.
        public init(name: String, contents: Data, intakeKey: String? = nil) {
            self.name = name
            self.contents = contents
            self.intakeKey = intakeKey
        }
    }

    /// The channel that enqueueing and giving jobs back notify.
    static let channel = "lineup_jobs"
    /// Wakes the daemons that listen, when its transaction commits.
    static let notification = "SELECT pg_notify('\(channel)', '')"

    /// Wakes about `jobs` of the daemons that listen, when its transaction commits (see
    /// ``WakeShare``): one new job need not have every idle daemon claim for it.
    static func sharedNotification(forJobs jobs: Int) -> String {
        "SELECT pg_notify('\(channel)', '\(WakeShare.payload(jobs: jobs))')"
    }

    /// The database's URL without its password.
    public let location: String
    let url: URL
    let sessions: PostgresSessionPool
    let logger: Logger

    /// Connects to the database at `url`, and creates the tables if they are not there or
    /// migrates them if they are older (``JobTableMigrations``); refuses tables of a newer Lineup.
    public init(url: URL, logger: Logger, connections: Int = 2) throws {
        self.url = url
        self.logger = logger
        let sessions = PostgresSessionPool(capacity: connections) { try PostgresSession.connect(to: url, logger: logger) }
        location = try sessions.withSession { session in
            try session.transaction { try Self.prepareSchema(session, logger: logger) }
            return session.location
        }
        self.sessions = sessions
    }

    /// Closes the database's connections; call it once done with the jobs.
    public func close() {
        sessions.close()
    }

    /// Inserts the jobs in one transaction and wakes the daemons; returns how many were
    /// inserted (a job whose intake key is in the table already is not inserted again).
    ///
    /// A job file that is not valid is inserted all the same: the daemon that claims it fails it
    /// with the reason, as a daemon fails a broken file in its spool, and nothing is lost.
    @discardableResult
    public func enqueue(_ submissions: [Submission]) throws -> Int {
        guard !submissions.isEmpty else { return 0 }
        let statements = try Self.insertion(of: submissions)
        return try sessions.withSession { session in
            try session.transaction {
                var inserted = 0
                for statement in statements {
                    inserted = try session.execute(statement.sql, statement.arguments)
                }
                try session.execute(Self.sharedNotification(forJobs: inserted))
                return inserted
            }
        }
    }

    /// The statements that insert `submissions`, in a transaction of the caller's (``enqueue(_:)``'s
    /// own, or a flush's: the jobs enqueued with the data): the advisory lock of each unique key
    /// they hold, then the insertion, last. The caller notifies the daemons after them.
    static func insertion(of submissions: [Submission]) throws -> [FlushStatement] {
        let rows = submissions.enumerated().map { position, submission in
            let file = try? JobFile(data: submission.contents, path: submission.name)
            return SubmittedRow(
                position: position, name: submission.name, jobID: file?.id, kind: file?.kind, queue: file?.queue, after: file?.after ?? [], uniqueKey: file?.uniqueKey,
                contents: submission.contents.base64EncodedString(),
                notBefore: file?.notBefore?.timeIntervalSince1970, intakeKey: submission.intakeKey,
                priority: file?.priority ?? JobFile.defaultPriority, uniqueFor: file?.uniqueFor?.timeInterval)
        }
        let json = try Self.jsonArgument(rows)
        // One key's enqueuers take turns.
        let locks = Set(rows.compactMap(\.uniqueKey)).sorted().map { key in
            FlushStatement("SELECT pg_advisory_xact_lock(hashtext($1))", arguments: [.text(key)])
        }
        // A job whose key a queued or running job holds (inserted before, or earlier in this
        // batch), or, with `uniqueFor`, a job done within that period, goes in failed, naming the
        // holder, as a daemon refuses it from a spool. A failed job holds no key.
        return locks + [
            FlushStatement(
                """
                WITH submitted AS (
                    SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(
                        n integer, name text, job_id text, kind text, queue text, after_ids text[], unique_key text, contents text,
                        not_before float8, intake_key text, priority smallint, unique_for float8)
                ), ranked AS (
                    SELECT s.*,
                        first_value(s.name) OVER (PARTITION BY s.unique_key ORDER BY s.n) AS first_of_key,
                        row_number() OVER (PARTITION BY s.unique_key ORDER BY s.n) AS rank_in_key
                    FROM submitted AS s
                ), judged AS (
                    SELECT r.*, CASE WHEN r.unique_key IS NOT NULL THEN COALESCE(
                        h.name, CASE WHEN r.rank_in_key > 1 THEN r.first_of_key END) END AS holder,
                        h.state AS holder_state
                    FROM ranked AS r LEFT JOIN LATERAL (
                        SELECT h.name, h.state FROM lineup_jobs AS h
                        WHERE r.unique_key IS NOT NULL AND h.unique_key = r.unique_key
                            AND (h.state IN ('queued', 'running')
                                 OR (r.unique_for IS NOT NULL AND h.state = 'done'
                                     AND h.finished_at > now() - make_interval(secs => r.unique_for)))
                        ORDER BY h.state = 'done' LIMIT 1) AS h ON true
                )
                INSERT INTO lineup_jobs
                    (name, job_id, kind, queue, after_ids, unique_key, contents, not_before, intake_key, state, finished_at, reason,
                     priority)
                SELECT name, job_id, kind, queue, COALESCE(after_ids, '{}'), unique_key, decode(contents, 'base64'),
                       COALESCE(to_timestamp(not_before), now()), intake_key,
                       CASE WHEN holder IS NULL THEN 'queued' ELSE 'failed' END,
                       CASE WHEN holder IS NULL THEN NULL ELSE now() END,
                       CASE WHEN holder IS NULL THEN NULL ELSE
                           name || '.job.json: duplicate job: refused: job ' || holder || ' holds uniqueKey `'
                           || unique_key || CASE WHEN holder_state = 'done'
                               THEN '`: it was done within uniqueFor (' || unique_for || ' s)'
                               ELSE '` and is queued or running' END END,
                       priority
                FROM judged ORDER BY n
                ON CONFLICT (intake_key) WHERE intake_key IS NOT NULL DO NOTHING
                """, arguments: [json])
        ]
    }

    /// The number of jobs in each state (queued ones due or not).
    public func counts() throws -> JobCounts {
        try sessions.withSession { session in
            var counts = JobCounts.zero
            for row in try session.rows("SELECT state, count(*) FROM lineup_jobs GROUP BY state") {
                if case let .text(value) = row[0], let state = JobState(columnValue: value), case let .integer(count) = row[1] {
                    counts[state] = Int(count)
                }
            }
            return counts
        }
    }

    /// The daemons that hold a lease (`lineup_daemons`), oldest first. A daemon that died stays
    /// listed until its lease has run out and another daemon has taken its jobs back.
    public func daemons() throws -> [DaemonLease] {
        try sessions.withSession { session in
            try session.rows(
                """
                SELECT host, pid::bigint, extract(epoch FROM started_at)::float8, extract(epoch FROM lease_expires_at)::float8
                FROM lineup_daemons ORDER BY id
                """
            ).compactMap { row in
                guard case let .text(host) = row[0], case let .integer(pid) = row[1], case let .real(started) = row[2],
                    case let .real(expires) = row[3]
                else { return nil }
                return DaemonLease(
                    host: host, pid: Int(pid), startedAt: Date(timeIntervalSince1970: started),
                    leaseExpiresAt: Date(timeIntervalSince1970: expires))
            }
        }
    }

    /// The failed jobs, newest first: `limit` of them, or all.
    public func failures(limit: Int? = nil) throws -> [StatusSnapshot.Failure] {
        try sessions.withSession { session in
            try session.rows(
                """
                SELECT name, job_id, kind, reason, failed_attempts::bigint, extract(epoch FROM finished_at)::float8, report
                FROM lineup_jobs WHERE state = 'failed' ORDER BY finished_at DESC, id DESC LIMIT $1
                """, [limit.map { .integer(Int64($0)) } ?? .null]
            ).map { row in
                // The runner's report, when a daemon failed the job; the table's columns when the
                // table refused it (a duplicate key, a cycle, a poison).
                let report = row[6].textIfPresent.flatMap { try? JobFailureReport(data: Data($0.utf8)) }
                return StatusSnapshot.Failure(
                    name: row[0].textIfPresent ?? "?", id: row[1].textIfPresent, kind: row[2].textIfPresent,
                    reason: row[3].textIfPresent ?? "?", attempts: report?.attempts ?? Int(row[4].integerIfPresent ?? 0),
                    finishedAt: Date(timeIntervalSince1970: row[5].realIfPresent ?? 0))
            }
        }
    }

    /// Queues failed jobs again with a fresh attempt count: those whose id or name is in `ids`,
    /// or all of them. Returns the names queued.
    @discardableResult
    public func retryFailed(_ ids: [String]?) throws -> [String] {
        let list = try Self.jsonArgument(ids ?? [])
        return try sessions.withSession { session in
            try session.transaction {
                let names = try session.rows(
                    """
                    UPDATE lineup_jobs SET state = 'queued', failed_attempts = 0, interruptions = 0, claimed_by = NULL,
                        finished_at = NULL, reason = NULL, report = NULL, not_before = now()
                    WHERE state = 'failed' AND ($2 <> 0 OR job_id IN (SELECT jsonb_array_elements_text($1::jsonb))
                                                   OR name IN (SELECT jsonb_array_elements_text($1::jsonb)))
                    RETURNING name
                    """, [list, .integer(ids == nil ? 1 : 0)]
                ).compactMap(\.[0].textIfPresent)
                try session.execute(Self.sharedNotification(forJobs: names.count))
                return names.sorted()
            }
        }
    }

    /// Deletes the done jobs that finished before `cutoff`, but for those that a queued or
    /// running job names in its `after` (its claim reads them); returns how many went. Failed
    /// jobs stay, as in a spool, until they are retried.
    ///
    /// It deletes in transactions of at most `batchSize` rows, oldest first, until none is left:
    /// one statement over millions of rows would hold their locks, and keep vacuum from every
    /// dead row of the table, for as long as it ran. A batch locks only done rows, which no claim
    /// reads, and skips those another daemon's prune holds.
    @discardableResult
    public func pruneDone(finishedBefore cutoff: Date, batchSize: Int = JobDatabase.pruneBatchSize) throws -> Int {
        precondition(batchSize > 0, "a prune's batch deletes one row at least")
        var removed = 0
        while true {
            let batch = try pruneDoneBatch(finishedBefore: cutoff, batchSize: batchSize)
            removed += batch
            if batch < batchSize { return removed }
        }
    }

    /// One transaction of ``pruneDone(finishedBefore:batchSize:)``: deletes at most `batchSize`
    /// of the oldest done jobs that finished before `cutoff` and that no job waits for; returns
    /// how many went (fewer than `batchSize`: none is left that no other prune holds).
    public func pruneDoneBatch(finishedBefore cutoff: Date, batchSize: Int = JobDatabase.pruneBatchSize) throws -> Int {
        try sessions.withSession { session in
            try session.execute(JobTableStatements.prune, [.real(cutoff.timeIntervalSince1970), .integer(Int64(batchSize))])
        }
    }

    /// How many done jobs one transaction of ``pruneDone(finishedBefore:batchSize:)`` deletes.
    public static let pruneBatchSize = 1_000

    /// How the job with this id was settled (done wins over failed, as in a spool); nil when no
    /// job with it is done or failed.
    func settledOutcome(ofJobID id: String) throws -> SettledJobOutcome? {
        try sessions.withSession { session in
            let rows = try session.rows(
                """
                SELECT state, reason FROM lineup_jobs WHERE job_id = $1 AND state IN ('done', 'failed')
                ORDER BY state = 'done' DESC, id DESC LIMIT 1
                """, [.text(id)])
            guard let row = rows.first else { return nil }
            if row[0] == .text(JobState.done.columnValue) { return .done }
            if case let .text(reason) = row[1] { return .failed(reason: reason) }
            return .failed(reason: "see \(location), table lineup_jobs, job id \(id)")
        }
    }

    /// The report of the job with this id that was settled (done wins over failed); nil when no
    /// job with it is done or failed, or its report cannot be read.
    func settledReport(ofJobID id: String) throws -> DependencyReport? {
        try sessions.withSession { session in
            let rows = try session.rows(
                """
                SELECT state, report FROM lineup_jobs WHERE job_id = $1 AND state IN ('done', 'failed')
                ORDER BY state = 'done' DESC, id DESC LIMIT 1
                """, [.text(id)])
            guard let row = rows.first, case let .text(report) = row[1] else { return nil }
            if row[0] == .text(JobState.done.columnValue) {
                return (try? JobResultReport(data: Data(report.utf8))).map(DependencyReport.done)
            }
            return (try? JobFailureReport(data: Data(report.utf8))).map(DependencyReport.failed)
        }
    }

    /// Which of `ids` belong to jobs that are queued or running (here or on another daemon).
    func pendingJobIDs(among ids: Set<String>) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let list = try Self.jsonArgument(ids.sorted())
        return try sessions.withSession { session in
            Set(
                try session.rows(
                    """
                    SELECT DISTINCT job_id FROM lineup_jobs
                    WHERE state IN ('queued', 'running') AND job_id IN (SELECT jsonb_array_elements_text($1::jsonb))
                    """, [list]
                ).compactMap(\.[0].textIfPresent))
        }
    }

    /// `value` as one JSON text parameter: how a batch reaches `jsonb_to_recordset` or
    /// `jsonb_array_elements_text`, whatever its size.
    static func jsonArgument(_ value: some Encodable) throws -> StoreValue {
        .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// A row as `enqueue` hands it to `jsonb_to_recordset`: one parameter for any number of jobs.
    private struct SubmittedRow: Encodable {
        /// Its place in the batch: of two jobs of one key, the first is inserted.
        let position: Int
        let name: String
        let jobID: String?
        let kind: String?
        /// The queue its file names (``LineupSpool/JobFile/queue``).
        let queue: String?
        let after: [String]
        let uniqueKey: String?
        let contents: String
        let notBefore: Double?
        let intakeKey: String?
        let priority: Int
        let uniqueFor: Double?

        enum CodingKeys: String, CodingKey {
            case name, kind, queue, contents
            case position = "n"
            case jobID = "job_id", after = "after_ids", uniqueKey = "unique_key", notBefore = "not_before", intakeKey = "intake_key"
            case priority, uniqueFor = "unique_for"
        }
    }

    private static func prepareSchema(_ session: PostgresSession, logger: Logger) throws {
        // Several daemons starting on a new or older database at once create or migrate the tables
        // once; a database of a newer Lineup is refused, naming both versions.
        try JobTableMigrations.migrate(session, logger: logger)
    }
}

extension StoreValue {
    /// The text, for a text value; nil for NULL (or another type).
    var textIfPresent: String? {
        if case let .text(text) = self { text } else { nil }
    }

    var integerIfPresent: Int64? {
        if case let .integer(integer) = self { integer } else { nil }
    }

    var realIfPresent: Double? {
        if case let .real(real) = self { real } else { nil }
    }
}
