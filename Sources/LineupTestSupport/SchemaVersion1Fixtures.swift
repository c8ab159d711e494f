/// Databases as Lineup made them before their schemas had versions (version 1 of each), for the
/// tests that upgrade one. Copied from the code of that Lineup (main at 7d67f42), never from the
/// migrations: a fixture made by the code under test would prove nothing.
public enum SchemaVersion1Fixtures: Sendable {
    /// The statements `JobDatabase` ran on every open, in its advisory lock's transaction, to make
    /// the job tables of a PostgreSQL database. A queued job is stored as `available`.
    public static let jobTables: [String] = [
        """
        CREATE TABLE IF NOT EXISTS lineup_daemons (
            id BIGSERIAL PRIMARY KEY,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            lease_expires_at TIMESTAMPTZ NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS lineup_jobs (
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
        "CREATE INDEX IF NOT EXISTS lineup_jobs_due ON lineup_jobs (not_before, id) WHERE state = 'available'",
        "CREATE INDEX IF NOT EXISTS lineup_jobs_running ON lineup_jobs (claimed_by) WHERE state = 'running'",
        "CREATE INDEX IF NOT EXISTS lineup_jobs_job_id ON lineup_jobs (job_id)",
        "CREATE INDEX IF NOT EXISTS lineup_jobs_waiting ON lineup_jobs (id) WHERE state = 'available' AND after_ids <> '{}'",
        "CREATE INDEX IF NOT EXISTS lineup_jobs_unique_key ON lineup_jobs (unique_key) WHERE state IN ('available', 'running')",
    ]

    /// A queued job's row as that Lineup's enqueue inserted it: state `available`, `contents` the
    /// job file's bytes (given in hexadecimal).
    public static func queuedJob(name: String, jobID: String, kind: String, contentsHex: String) -> String {
        """
        INSERT INTO lineup_jobs (name, job_id, kind, contents, state)
        VALUES ('\(name)', '\(jobID)', '\(kind)', decode('\(contentsHex)', 'hex'), 'available')
        """
    }

    /// An SQLite store of that Lineup with an empty model, as `SQLiteStore` created it.
    public static let sqliteStore: [String] = [
        "CREATE TABLE lineup_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """
        INSERT INTO lineup_metadata (key, value) VALUES
            ('format', 'lineup-store'), ('format_version', '1'), ('store_uuid', '6F9619FF-8B86-D011-B42D-00C04FC964FF'),
            ('next_pk', '1'), ('next_stamp', '1'), ('schema', '[]')
        """,
    ]

    /// A PostgreSQL store of that Lineup with an empty model, as `PostgresStore` created it.
    public static let postgresStore: [String] = [
        "CREATE TABLE lineup_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE SEQUENCE lineup_primary_keys INCREMENT BY 4096",
        "CREATE SEQUENCE lineup_stamps INCREMENT BY 65536",
        """
        INSERT INTO lineup_metadata (key, value) VALUES
            ('format', 'lineup-store'), ('format_version', '1'), ('store_uuid', '6F9619FF-8B86-D011-B42D-00C04FC964FF'),
            ('schema', '[]')
        """,
    ]

    /// `statements` as one script for `psql -c`.
    public static func script(_ statements: [String]) -> String {
        statements.map { $0 + ";" }.joined(separator: "\n")
    }
}
