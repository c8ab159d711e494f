import Foundation
package import LineupStore
package import Logging

/// The versions of the job tables of a PostgreSQL database (`lineup_jobs`, `lineup_daemons`),
/// with the migrations between them, in the order they run.
///
/// A database records each job-table migration that ran as a row of `lineup_migrations` (line
/// `jobs`, its version and name, when it ran), in the transaction that ran it. Tables made before
/// versions were recorded hold no row and are version 1, which creates exactly what that Lineup
/// created; a database without `lineup_jobs` is at 0.
///
/// ``JobDatabase`` migrates when it opens: in one transaction that holds an advisory lock, it
/// reads the version, refuses a newer one naming both versions, and runs what is pending, so that
/// daemons starting together on an older database migrate it once. `lineup migrate` shows and
/// runs the same migrations by hand.
///
/// Daemons of an older Lineup still running on the database when it migrates go on with the SQL
/// of their version: stop them first (their statements may fail, or see nothing, after it).
package enum JobTableMigrations {
    package static let subject = "job-table schema"
    /// The line of `lineup_migrations` these migrations record under.
    static let line = "jobs"
    /// Held, for its transaction, by whoever creates or migrates the job tables.
    package static let lock: Int64 = 0x6C69_6E65_7570_6A  // "lineupj"
    package static var lockStatement: String { "SELECT pg_advisory_xact_lock(\(lock))" }

    package static let migrations = SchemaMigrations(
        subject: subject, migrations: [version1, version2, version3, version4, version5, version6, version7, version8, version9],
        preamble: [
            """
            CREATE TABLE IF NOT EXISTS lineup_migrations (
                line TEXT NOT NULL,
                version INTEGER NOT NULL,
                name TEXT NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                PRIMARY KEY (line, version)
            )
            """
        ],
        recording: { migration in
            "INSERT INTO lineup_migrations (line, version, name) VALUES ('\(JobTableMigrations.line)', \(migration.version), "
                + "'\(migration.name.replacingOccurrences(of: "'", with: "''"))')"
        })

    /// The tables as Lineup created them before their schema had versions.
    static let version1 = SchemaMigration(
        version: 1, name: "job and daemon tables",
        statements: [
            """
            CREATE TABLE lineup_daemons (
                id BIGSERIAL PRIMARY KEY,
                host TEXT NOT NULL,
                pid INTEGER NOT NULL,
                started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                lease_expires_at TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE lineup_jobs (
                id BIGSERIAL PRIMARY KEY,
                name TEXT NOT NULL,
                job_id TEXT,
                kind TEXT,
                after_ids TEXT[] NOT NULL DEFAULT '{}',
                unique_key TEXT,
                contents BYTEA NOT NULL,
                state TEXT NOT NULL DEFAULT 'available'
                    CHECK (state IN ('available', 'running', 'done', 'failed')),
                not_before TIMESTAMPTZ NOT NULL DEFAULT now(),
                enqueued_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                claims INTEGER NOT NULL DEFAULT 0,
                failed_attempts INTEGER NOT NULL DEFAULT 0,
                interruptions INTEGER NOT NULL DEFAULT 0,
                claimed_by BIGINT,
                claimed_at TIMESTAMPTZ,
                finished_at TIMESTAMPTZ,
                report TEXT,
                reason TEXT,
                intake_key TEXT UNIQUE
            )
            """,
            "CREATE INDEX lineup_jobs_due ON lineup_jobs (not_before, id) WHERE state = 'available'",
            "CREATE INDEX lineup_jobs_running ON lineup_jobs (claimed_by) WHERE state = 'running'",
            "CREATE INDEX lineup_jobs_job_id ON lineup_jobs (job_id)",
            "CREATE INDEX lineup_jobs_waiting ON lineup_jobs (id) WHERE state = 'available' AND after_ids <> '{}'",
            "CREATE INDEX lineup_jobs_unique_key ON lineup_jobs (unique_key) WHERE state IN ('available', 'running')",
        ])

    /// A queued job was stored as `available`, the name the table was created with, while every
    /// other reader (the spool, the status, the API) calls the state `queued`: the stored value
    /// becomes the state's name, so that `JobState.columnValue` is the raw name. The check
    /// constraint goes first (it names the old value), and the partial indexes whose `WHERE` names
    /// it are made again.
    static let version2 = SchemaMigration(
        version: 2, name: "queued jobs stored as queued",
        statements: [
            "ALTER TABLE lineup_jobs DROP CONSTRAINT lineup_jobs_state_check",
            "UPDATE lineup_jobs SET state = 'queued' WHERE state = 'available'",
            "ALTER TABLE lineup_jobs ALTER COLUMN state SET DEFAULT 'queued'",
            "ALTER TABLE lineup_jobs ADD CONSTRAINT lineup_jobs_state_check CHECK (state IN ('queued', 'running', 'done', 'failed'))",
            "DROP INDEX lineup_jobs_due",
            "CREATE INDEX lineup_jobs_due ON lineup_jobs (not_before, id) WHERE state = 'queued'",
            "DROP INDEX lineup_jobs_waiting",
            "CREATE INDEX lineup_jobs_waiting ON lineup_jobs (id) WHERE state = 'queued' AND after_ids <> '{}'",
            "DROP INDEX lineup_jobs_unique_key",
            "CREATE INDEX lineup_jobs_unique_key ON lineup_jobs (unique_key) WHERE state IN ('queued', 'running')",
        ])

    /// A job's priority (``LineupSpool/JobFile/priority``, 0 claimed first) gets a column, which
    /// the claim orders by before `not_before`: the due index leads with it, so that a claim reads
    /// the first rows of the index whatever the number of jobs queued. Rows there already take the
    /// default priority, which is the priority their files say (none). `uniqueFor` looks for done
    /// jobs of a key, which the unique-key index (queued and running jobs only) does not hold:
    /// an index of the done jobs' keys and finishing times answers it.
    static let version3 = SchemaMigration(
        version: 3, name: "job priorities and unique periods",
        statements: [
            // JobFile.defaultPriority and JobFile.priorities as they were when this ran: a
            // migration says what it did, whatever the constants become.
            "ALTER TABLE lineup_jobs ADD COLUMN priority SMALLINT NOT NULL DEFAULT 5",
            "ALTER TABLE lineup_jobs ADD CONSTRAINT lineup_jobs_priority_check CHECK (priority BETWEEN 0 AND 9)",
            "DROP INDEX lineup_jobs_due",
            "CREATE INDEX lineup_jobs_due ON lineup_jobs (priority, not_before, id) WHERE state = 'queued'",
            "CREATE INDEX lineup_jobs_unique_key_done ON lineup_jobs (unique_key, finished_at) WHERE state = 'done' AND unique_key IS NOT NULL",
        ])

    /// Pauses and limits (issue 33, items 2 and 4): the paused kinds and queues, which every
    /// daemon's claim reads, and the claims of rate-limited scopes, counted by recency. Running
    /// jobs are counted through `lineup_jobs_running` (few rows: each daemon's running jobs),
    /// so no index is added to the jobs table and a claim of an unlimited kind writes nothing more.
    static let version4 = SchemaMigration(
        version: 4, name: "paused kinds and queues, rate-limited claims",
        statements: [
            """
            CREATE TABLE lineup_paused (
                scope TEXT NOT NULL CHECK (scope IN ('kind', 'queue')),
                name TEXT NOT NULL,
                paused_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                PRIMARY KEY (scope, name)
            )
            """,
            """
            CREATE TABLE lineup_limit_claims (
                scope TEXT NOT NULL,
                claimed_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX lineup_limit_claims_recent ON lineup_limit_claims (scope, claimed_at)",
        ])

    /// An operator's request to cancel a running job (`lineup cancel --database`): the daemon
    /// that holds the job reads it (notified on `lineup_cancel`, or at its next tick) and stops
    /// the job. A request on a job given back stays for the daemon that claims it next.
    static let version5 = SchemaMigration(
        version: 5, name: "cancellation requests",
        statements: [
            "ALTER TABLE lineup_jobs ADD COLUMN cancel_requested_at TIMESTAMPTZ"
        ])

    /// A table with a long history (issue 35): pruning found the done jobs past their retention
    /// by reading every done row, and checked each against every queued or running job for an
    /// `after` that names it. The done jobs get an index by finishing time, which a prune's
    /// batch reads from its oldest end; the index of jobs that wait for others takes the running
    /// ones in too, so that the jobs a prune must keep are found from that index alone.
    ///
    /// Building an index on a large table holds off inserts and updates meanwhile (a migration
    /// runs in one transaction, where `CREATE INDEX CONCURRENTLY` is refused): migrate a
    /// database with millions of rows while its daemons are stopped, as they must be anyway.
    static let version6 = SchemaMigration(
        version: 6, name: "indexes for long histories",
        statements: [
            "CREATE INDEX lineup_jobs_done_finished ON lineup_jobs (finished_at) WHERE state = 'done'",
            "DROP INDEX lineup_jobs_waiting",
            "CREATE INDEX lineup_jobs_waiting ON lineup_jobs (id) WHERE state IN ('queued', 'running') AND after_ids <> '{}'",
        ])

    /// Churn without bloat (issue 35): every job writes three versions of its row (queued,
    /// running, done), and neither update can be HOT (heap-only), since `state` is in the partial
    /// indexes' predicates and the claim and the acknowledgement also set indexed columns
    /// (`claimed_by`, `finished_at`); the table's dead versions are vacuum's to reclaim.
    ///
    /// - No `fillfactor` below 100 for `lineup_jobs`: with room left in each page, an update
    ///   writes its next version there, but none of a job's updates can be HOT, so every version
    ///   still needs new index entries, and over 1,000,000 jobs a fill factor of 80 only made the
    ///   table 13 % larger. The updates that can be HOT are the heartbeats of `lineup_daemons` (a
    ///   row a daemon renews every tick; `lease_expires_at` is in no index), whose table gets 50.
    /// - autovacuum by a hundredth of the table rather than a fifth (at least a thousand rows),
    ///   for dead and for inserted rows, and without the cost delay that spreads a vacuum's work
    ///   out: on a queue, the dead versions are concentrated in the pages of recent jobs, and a
    ///   vacuum that waits for a fifth of a table of millions lets them double the table first.
    ///   `autovacuum_naptime` (the launcher's round, 1 min by default) is the server's.
    ///
    /// Storage parameters only: no row is rewritten.
    static let version7 = SchemaMigration(
        version: 7, name: "storage parameters for churn",
        statements: [
            """
            ALTER TABLE lineup_jobs SET (
                autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
                autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 1000,
                autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 1000,
                autovacuum_vacuum_cost_delay = 0)
            """,
            "ALTER TABLE lineup_daemons SET (fillfactor = 50)",
        ])

    /// Index entries only for jobs that have what an index looks up (issue 35, item 6). Most
    /// jobs have no id, no unique key and no intake key (only jobs moved in from a spool or an
    /// outbox have one), yet `lineup_jobs_job_id` and the intake key's unique constraint took an
    /// entry for every version of every row (its insert, its claim, its acknowledgement: none of
    /// the updates can be HOT), and `lineup_jobs_unique_key` one for each queued and running
    /// version: eight of the fourteen entries such a job made over its life were NULLs that no
    /// statement reads. Every statement looks ids and keys up with `=` (`job_id = …`,
    /// `= ANY (…)`, `IN (…)`), which implies `IS NOT NULL`, so the planner still takes the
    /// partial indexes (the plan test holds the claim's dependency check and the ticks to that);
    /// the insertion names the intake key's predicate in its `ON CONFLICT`.
    ///
    /// The indexes are built again, as in version 6: migrate a large table with its daemons
    /// stopped (an older daemon's insertion names no predicate, and is refused after it).
    static let version8 = SchemaMigration(
        version: 8, name: "index entries only for jobs that have the key",
        statements: [
            "DROP INDEX lineup_jobs_job_id",
            "CREATE INDEX lineup_jobs_job_id ON lineup_jobs (job_id) WHERE job_id IS NOT NULL",
            "DROP INDEX lineup_jobs_unique_key",
            "CREATE INDEX lineup_jobs_unique_key ON lineup_jobs (unique_key) WHERE state IN ('queued', 'running') AND unique_key IS NOT NULL",
            "ALTER TABLE lineup_jobs DROP CONSTRAINT lineup_jobs_intake_key_key",
            "CREATE UNIQUE INDEX lineup_jobs_intake_key ON lineup_jobs (intake_key) WHERE intake_key IS NOT NULL",
        ])

    /// The queue a job's file names (``LineupSpool/JobFile/queue``) gets a column (issue 50,
    /// item 5), as its kind has one: a job runs in the queue it names, else in its kind's, and
    /// the claim (a paused or limited queue) and the browser (a queue's jobs) must say so from
    /// the row (``JobTableStatements/routedQueue(of:rule:)``). The rows there already take the
    /// queue their contents name: only those whose contents hold `"queue"` are parsed, each in a
    /// block of its own, so that contents that are not JSON (inserted all the same, for the
    /// daemon to fail) leave the column NULL, as the insertion does. No index: the claim reads
    /// the column only for the due rows its index yields.
    static let version9 = SchemaMigration(
        version: 9, name: "the queue a job names",
        statements: [
            "ALTER TABLE lineup_jobs ADD COLUMN queue TEXT",
            """
            DO $$
            DECLARE job record;
            BEGIN
                FOR job IN SELECT id, contents FROM lineup_jobs WHERE position('"queue"'::bytea IN contents) > 0 LOOP
                    BEGIN
                        UPDATE lineup_jobs SET queue = convert_from(job.contents, 'UTF8')::jsonb ->> 'queue'
                        WHERE id = job.id AND jsonb_typeof(convert_from(job.contents, 'UTF8')::jsonb -> 'queue') = 'string';
                    EXCEPTION WHEN OTHERS THEN
                        NULL;
                    END;
                END LOOP;
            END
            $$
            """,
        ])

    /// Where the job tables of `session`'s database stand, read without changing anything.
    package static func status(of session: PostgresSession) throws -> SchemaStatus {
        let tables = try session.rows(
            """
            SELECT tablename::text FROM pg_tables
            WHERE schemaname = current_schema() AND tablename IN ('lineup_jobs', 'lineup_migrations')
            """
        ).compactMap { row -> String? in if case let .text(name) = row[0] { name } else { nil } }
        var recorded: Int?
        if tables.contains("lineup_migrations"),
            case let .integer(version)? = try session.rows(
                "SELECT max(version) FROM lineup_migrations WHERE line = $1", [.text(line)]
            ).first?.first
        {
            recorded = Int(version)
        }
        switch (recorded, tables.contains("lineup_jobs")) {
        case let (version?, _):
            return SchemaStatus(migrations, location: session.location, version: version)
        case (nil, true):
            return SchemaStatus(
                migrations, location: session.location, version: 1, note: "tables made before versions were recorded")
        case (nil, false):
            return SchemaStatus(migrations, location: session.location, version: 0, note: "no job tables yet")
        }
    }

    /// What ``migrate(_:to:logger:)`` would run now, read without changing anything: what
    /// `--dry-run` prints.
    package static func plan(of session: PostgresSession, to target: Int? = nil) throws -> SchemaMigrationPlan {
        try migrations.plan(from: try status(of: session).version, to: target, location: session.location)
    }

    /// Takes the job tables to `target` (the latest when nil) inside the caller's transaction:
    /// takes the lock, reads the version under it, refuses a newer one, and runs what is pending.
    /// Returns what ran. Daemons that open the database together wait here for the first, then
    /// find nothing to do.
    @discardableResult
    package static func migrate(_ session: PostgresSession, to target: Int? = nil, logger: Logger) throws -> SchemaMigrationPlan {
        try session.execute(lockStatement)
        let plan = try plan(of: session, to: target)
        try plan.run(logger: logger) { try session.execute($0) }
        return plan
    }
}
