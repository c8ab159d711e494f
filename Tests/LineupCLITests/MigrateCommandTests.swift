import Foundation
import GRDB
import LineupTestSupport
import Testing

/// `lineup migrate status` and `up` (with `--to` and `--dry-run`) on an SQLite store and on a
/// PostgreSQL database, run as the built binary: what they print, their exit status, and what
/// they leave in the database.
@Suite("lineup migrate")
struct MigrateCommandTests {
    /// A store as the Lineup before versioned migrations made it (version 1), at `url`.
    private func writeStoreOfTheFirstVersion(at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for statement in SchemaVersion1Fixtures.sqliteStore { try db.execute(sql: statement) }
        }
        try queue.close()
    }

    /// Sets the version the store records, as a newer Lineup would.
    private func setStoreVersion(_ version: Int, at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "UPDATE lineup_metadata SET value = '\(version)' WHERE key = 'format_version'") }
        try queue.close()
    }

    /// Every file of the store, with its bytes.
    private func snapshot(_ url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", ".lock"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            files[suffix] = try Data(contentsOf: URL(fileURLWithPath: url.path + suffix))
        }
        return files
    }

    /// The SQL of store-schema migration 2 (the outbox), as the dry run prints it.
    static let outboxTable =
        "CREATE TABLE lineup_outbox (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, key TEXT NOT NULL UNIQUE, body BLOB NOT NULL);"

    @Test func statusUpAndDryRunOnAnSQLiteStore() async throws {
        try await withSandbox { sandbox in
            let path = sandbox.store.path
            try writeStoreOfTheFirstVersion(at: sandbox.store)
            let before = try snapshot(sandbox.store)

            let pending = "store schema, \(path): version 1; latest 2; 1 pending\n  2  outbox of jobs enqueued with the data\n"
            var result = try await sandbox.lineup(["migrate", "status", "--store", path])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(result.standardOutput == pending)
            // `status` is the default subcommand.
            result = try await sandbox.lineup(["migrate", "--store", path])
            #expect(result.standardOutput == pending)

            result = try await sandbox.lineup(["migrate", "up", "--store", path, "--dry-run"])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(
                result.standardOutput == """
                    -- store schema of \(path): version 1 to 2
                    BEGIN IMMEDIATE TRANSACTION;
                    -- 2: outbox of jobs enqueued with the data
                    \(Self.outboxTable)
                    INSERT INTO lineup_metadata (key, value) VALUES ('format_version', '2') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
                    COMMIT;

                    """, "\(result.standardOutput)")
            #expect(try snapshot(sandbox.store) == before, "a dry run changes nothing")

            result = try await sandbox.lineup(["migrate", "up", "--store", path, "--to", "3"])
            #expect(result.termination == .exited(1))
            #expect(result.standardError.contains("\(path): there is no store schema version 3; this Lineup knows up to 2"))
            #expect(try snapshot(sandbox.store) == before)

            result = try await sandbox.lineup(["migrate", "up", "--store", path])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(
                result.standardOutput
                    == "store schema, \(path): migrated from version 1 to 2\n  ran 2  outbox of jobs enqueued with the data\n")
            result = try await sandbox.lineup(["migrate", "status", "--store", path])
            #expect(result.standardOutput == "store schema, \(path): version 2; latest 2; up to date\n")

            let migrated = try snapshot(sandbox.store)
            result = try await sandbox.lineup(["migrate", "up", "--store", path])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(result.standardOutput == "store schema, \(path): version 2; nothing to run\n")
            #expect(try snapshot(sandbox.store) == migrated, "nothing to run: the store is not even opened for writing")
        }
    }

    @Test func aNewerSQLiteStoreIsReportedAndRefusedNamingBothVersions() async throws {
        try await withSandbox { sandbox in
            let path = sandbox.store.path
            try writeStoreOfTheFirstVersion(at: sandbox.store)
            try setStoreVersion(3, at: sandbox.store)
            let before = try snapshot(sandbox.store)

            var result = try await sandbox.lineup(["migrate", "status", "--store", path])
            #expect(result.termination == .exited(0), "\(result.standardError)")
            #expect(result.standardOutput == "store schema, \(path): version 3; latest 2; NEWER than this Lineup knows: upgrade Lineup to use it\n")
            for arguments in [["migrate", "up", "--store", path], ["migrate", "up", "--store", path, "--dry-run"]] {
                result = try await sandbox.lineup(arguments)
                #expect(result.termination == .exited(1), "\(arguments)")
                #expect(result.standardError.contains("\(path) has store schema version 3; this Lineup knows up to 2: upgrade Lineup"), "\(result.standardError)")
            }
            #expect(try snapshot(sandbox.store) == before)
        }
    }

    @Test func clearErrorsForAMissingStoreAndMisusedOptions() async throws {
        try await withSandbox { sandbox in
            let missing = sandbox.root.appending(path: "missing.sqlite").path
            var result = try await sandbox.lineup(["migrate", "status", "--store", missing])
            #expect(result.termination == .exited(1))
            #expect(result.standardError.contains("no store at \(missing): no such file"), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: missing))

            result = try await sandbox.lineup(["migrate", "status", "--schema", "jobs"])
            #expect(result.termination == .exited(64))
            #expect(result.standardError.contains("--schema jobs needs --database"))
            result = try await sandbox.lineup(["migrate", "up", "--store", "a.sqlite", "--database", "postgres://lineup@localhost/x"])
            #expect(result.termination == .exited(64))
            #expect(result.standardError.contains("give --store or --database, not both"))
            result = try await sandbox.lineup(["migrate", "up", "--database", "postgres://lineup@localhost/x", "--to", "1"])
            #expect(result.termination == .exited(64))
            #expect(result.standardError.contains("--to needs --schema store or --schema jobs"))
        }
    }

    @Suite("on a database", .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired))
    struct OnADatabase {
        /// The advisory lock of the PostgreSQL store's schema (`PostgresStore.schemaLock`).
        static let storeSchemaLock = 0x6C69_6E65_7570
        /// What a dry run must leave as it was: the job rows, the recorded versions, the tables'
        /// indexes and constraints, and the store's metadata.
        private func snapshot(_ server: PostgresTestServer, _ database: String) throws -> String {
            try [
                "SELECT * FROM lineup_jobs ORDER BY id",
                "SELECT to_regclass('lineup_migrations') IS NULL",
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'lineup_jobs' ORDER BY indexname",
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'lineup_jobs'::regclass ORDER BY conname",
                "SELECT key, value FROM lineup_metadata ORDER BY key",
            ].map { try server.psql($0, database: database) }.joined(separator: "\n--\n")
        }

        @Test func statusDryRunAndUpOnTheStoreAndTheJobTables() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            // A database of the Lineup before versioned migrations: a store, and the job tables
            // with one queued job stored as `available`.
            _ = try server.psql(
                SchemaVersion1Fixtures.script(SchemaVersion1Fixtures.postgresStore + SchemaVersion1Fixtures.jobTables),
                database: database)
            _ = try server.psql(
                SchemaVersion1Fixtures.queuedJob(name: "old", jobID: "old", kind: "statistics", contentsHex: "7b7d"), database: database)
            try await withSandbox { sandbox in
                var result = try await sandbox.lineup(["migrate", "status", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(
                    result.standardOutput == """
                        store schema, \(url): version 1; latest 2; 1 pending
                          2  outbox of jobs enqueued with the data
                        job-table schema, \(url): version 1 (tables made before versions were recorded); latest 9; 8 pending
                          2  queued jobs stored as queued
                          3  job priorities and unique periods
                          4  paused kinds and queues, rate-limited claims
                          5  cancellation requests
                          6  indexes for long histories
                          7  storage parameters for churn
                          8  index entries only for jobs that have the key
                          9  the queue a job names

                        """)

                let before = try snapshot(server, database)
                result = try await sandbox.lineup(["migrate", "up", "--database", url, "--dry-run"])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(
                    result.standardOutput == """
                        -- store schema of \(url): version 1 to 2
                        BEGIN;
                        SELECT pg_advisory_xact_lock(\(Self.storeSchemaLock));
                        -- 2: outbox of jobs enqueued with the data
                        CREATE TABLE lineup_outbox (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, channel TEXT NOT NULL, key TEXT COLLATE "C" NOT NULL UNIQUE, body BYTEA NOT NULL);
                        INSERT INTO lineup_metadata (key, value) VALUES ('format_version', '2') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
                        COMMIT;
                        -- job-table schema of \(url): version 1 to 9
                        BEGIN;
                        SELECT pg_advisory_xact_lock(30515220354265194);
                        CREATE TABLE IF NOT EXISTS lineup_migrations (
                            line TEXT NOT NULL,
                            version INTEGER NOT NULL,
                            name TEXT NOT NULL,
                            applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                            PRIMARY KEY (line, version)
                        );
                        -- 2: queued jobs stored as queued
                        ALTER TABLE lineup_jobs DROP CONSTRAINT lineup_jobs_state_check;
                        UPDATE lineup_jobs SET state = 'queued' WHERE state = 'available';
                        ALTER TABLE lineup_jobs ALTER COLUMN state SET DEFAULT 'queued';
                        ALTER TABLE lineup_jobs ADD CONSTRAINT lineup_jobs_state_check CHECK (state IN ('queued', 'running', 'done', 'failed'));
                        DROP INDEX lineup_jobs_due;
                        CREATE INDEX lineup_jobs_due ON lineup_jobs (not_before, id) WHERE state = 'queued';
                        DROP INDEX lineup_jobs_waiting;
                        CREATE INDEX lineup_jobs_waiting ON lineup_jobs (id) WHERE state = 'queued' AND after_ids <> '{}';
                        DROP INDEX lineup_jobs_unique_key;
                        CREATE INDEX lineup_jobs_unique_key ON lineup_jobs (unique_key) WHERE state IN ('queued', 'running');
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 2, 'queued jobs stored as queued');
                        -- 3: job priorities and unique periods
                        ALTER TABLE lineup_jobs ADD COLUMN priority SMALLINT NOT NULL DEFAULT 5;
                        ALTER TABLE lineup_jobs ADD CONSTRAINT lineup_jobs_priority_check CHECK (priority BETWEEN 0 AND 9);
                        DROP INDEX lineup_jobs_due;
                        CREATE INDEX lineup_jobs_due ON lineup_jobs (priority, not_before, id) WHERE state = 'queued';
                        CREATE INDEX lineup_jobs_unique_key_done ON lineup_jobs (unique_key, finished_at) WHERE state = 'done' AND unique_key IS NOT NULL;
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 3, 'job priorities and unique periods');
                        -- 4: paused kinds and queues, rate-limited claims
                        CREATE TABLE lineup_paused (
                            scope TEXT NOT NULL CHECK (scope IN ('kind', 'queue')),
                            name TEXT NOT NULL,
                            paused_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                            PRIMARY KEY (scope, name)
                        );
                        CREATE TABLE lineup_limit_claims (
                            scope TEXT NOT NULL,
                            claimed_at TIMESTAMPTZ NOT NULL DEFAULT now()
                        );
                        CREATE INDEX lineup_limit_claims_recent ON lineup_limit_claims (scope, claimed_at);
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 4, 'paused kinds and queues, rate-limited claims');
                        -- 5: cancellation requests
                        ALTER TABLE lineup_jobs ADD COLUMN cancel_requested_at TIMESTAMPTZ;
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 5, 'cancellation requests');
                        -- 6: indexes for long histories
                        CREATE INDEX lineup_jobs_done_finished ON lineup_jobs (finished_at) WHERE state = 'done';
                        DROP INDEX lineup_jobs_waiting;
                        CREATE INDEX lineup_jobs_waiting ON lineup_jobs (id) WHERE state IN ('queued', 'running') AND after_ids <> '{}';
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 6, 'indexes for long histories');
                        -- 7: storage parameters for churn
                        ALTER TABLE lineup_jobs SET (
                            autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
                            autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 1000,
                            autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 1000,
                            autovacuum_vacuum_cost_delay = 0);
                        ALTER TABLE lineup_daemons SET (fillfactor = 50);
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 7, 'storage parameters for churn');
                        -- 8: index entries only for jobs that have the key
                        DROP INDEX lineup_jobs_job_id;
                        CREATE INDEX lineup_jobs_job_id ON lineup_jobs (job_id) WHERE job_id IS NOT NULL;
                        DROP INDEX lineup_jobs_unique_key;
                        CREATE INDEX lineup_jobs_unique_key ON lineup_jobs (unique_key) WHERE state IN ('queued', 'running') AND unique_key IS NOT NULL;
                        ALTER TABLE lineup_jobs DROP CONSTRAINT lineup_jobs_intake_key_key;
                        CREATE UNIQUE INDEX lineup_jobs_intake_key ON lineup_jobs (intake_key) WHERE intake_key IS NOT NULL;
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 8, 'index entries only for jobs that have the key');
                        -- 9: the queue a job names
                        ALTER TABLE lineup_jobs ADD COLUMN queue TEXT;
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
                        $$;
                        INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 9, 'the queue a job names');
                        COMMIT;

                        """, "\(result.standardOutput)")
                #expect(try snapshot(server, database) == before, "a dry run changes nothing")

                result = try await sandbox.lineup(["migrate", "up", "--database", url, "--schema", "jobs", "--to", "10"])
                #expect(result.termination == .exited(1))
                #expect(result.standardError.contains("\(url): there is no job-table schema version 10; this Lineup knows up to 9"))
                #expect(try snapshot(server, database) == before)

                result = try await sandbox.lineup(["migrate", "up", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(
                    result.standardOutput == """
                        store schema, \(url): migrated from version 1 to 2
                          ran 2  outbox of jobs enqueued with the data
                        job-table schema, \(url): migrated from version 1 to 9
                          ran 2  queued jobs stored as queued
                          ran 3  job priorities and unique periods
                          ran 4  paused kinds and queues, rate-limited claims
                          ran 5  cancellation requests
                          ran 6  indexes for long histories
                          ran 7  storage parameters for churn
                          ran 8  index entries only for jobs that have the key
                          ran 9  the queue a job names

                        """)
                #expect(try server.psql("SELECT name, state FROM lineup_jobs", database: database) == "old|queued")
                #expect(try server.psql("SELECT line, version FROM lineup_migrations ORDER BY version", database: database) == "jobs|2\njobs|3\njobs|4\njobs|5\njobs|6\njobs|7\njobs|8\njobs|9")

                result = try await sandbox.lineup(["migrate", "status", "--database", url, "--schema", "jobs"])
                #expect(result.standardOutput == "job-table schema, \(url): version 9; latest 9; up to date\n")
                result = try await sandbox.lineup(["migrate", "up", "--database", url, "--schema", "jobs", "--to", "1"])
                #expect(result.termination == .exited(1))
                #expect(result.standardError.contains("\(url) has job-table schema version 9, past 1: migrations only go forward"))
            }
        }

        @Test func tablesOfANewerLineupAreReportedAndRefusedNamingBothVersions() async throws {
            let server = try PostgresTestServer.shared()
            let database = try server.createDatabase()
            defer { try? server.dropDatabase(database) }
            let url = server.url(database: database)
            try await withSandbox { sandbox in
                // A new database: `up` makes the job tables; there is no store to migrate yet.
                var result = try await sandbox.lineup(["migrate", "up", "--database", url])
                #expect(result.termination == .exited(0), "\(result.standardError)")
                #expect(
                    result.standardOutput == """
                        store schema, \(url): no store yet; nothing to run
                        job-table schema, \(url): migrated from version 0 to 9
                          ran 1  job and daemon tables
                          ran 2  queued jobs stored as queued
                          ran 3  job priorities and unique periods
                          ran 4  paused kinds and queues, rate-limited claims
                          ran 5  cancellation requests
                          ran 6  indexes for long histories
                          ran 7  storage parameters for churn
                          ran 8  index entries only for jobs that have the key
                          ran 9  the queue a job names

                        """)
                _ = try server.psql("INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 10, 'later')", database: database)

                result = try await sandbox.lineup(["migrate", "status", "--database", url, "--schema", "jobs"])
                #expect(result.standardOutput == "job-table schema, \(url): version 10; latest 9; NEWER than this Lineup knows: upgrade Lineup to use it\n")
                for arguments in [["migrate", "up", "--database", url], ["status", "--database", url], ["enqueue", "statistics", "--database", url]] {
                    result = try await sandbox.lineup(arguments)
                    #expect(result.termination == .exited(1), "\(arguments)")
                    #expect(
                        result.standardError.contains("\(url) has job-table schema version 10; this Lineup knows up to 9: upgrade Lineup"),
                        "\(arguments): \(result.standardError)")
                }
                #expect(try server.psql("SELECT count(*) FROM lineup_jobs", database: database) == "0")
            }
        }
    }
}
