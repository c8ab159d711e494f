import Foundation
import LineupJobs
import LineupLocking
import LineupPostgres
import LineupSpool
import LineupStore
import LineupTestSupport
import Logging
import Testing

/// The versions of the job tables (`JobTableMigrations`): tables of the Lineup before versioned
/// migrations are version 1 and are migrated to 2 when a `JobDatabase` opens them, once however
/// many open them together; a newer version is refused, naming both, and nothing changes. Against
/// a real server (`PostgresTestServer`).
@Suite(
    .enabled(if: PostgresTestServer.isAvailable || PostgresTestServer.isRequired, "no PostgreSQL server here"),
    .daemonTestTimeLimit)
struct JobTableMigrationTests {
    typealias Database = DatabaseJobsTests.Database

    /// What a test can compare before and after: every job row, the recorded versions, and the
    /// definitions of the tables' indexes and constraints.
    private func snapshot(_ database: Database) throws -> String {
        let recorded =
            try database.psql("SELECT to_regclass('lineup_migrations') IS NOT NULL") == "t"
            ? try database.psql("SELECT line, version, name, applied_at FROM lineup_migrations ORDER BY line, version") : "none"
        return try [
            database.psql("SELECT * FROM lineup_jobs ORDER BY id"),
            recorded,
            database.psql("SELECT indexdef FROM pg_indexes WHERE tablename = 'lineup_jobs' ORDER BY indexname"),
            database.psql(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'lineup_jobs'::regclass ORDER BY conname"),
        ].joined(separator: "\n--\n")
    }

    /// The job tables exactly as the Lineup before versioned migrations made them, with one queued
    /// job as it stored it (`available`): a job that inserts two rows.
    private func databaseOfTheFirstVersion() throws -> Database {
        let database = try Database()
        _ = try database.psql(SchemaVersion1Fixtures.script(SchemaVersion1Fixtures.jobTables))
        let contents = try JobFile(kind: "insert-rows", id: "from-v1", parameters: ["count": 2]).encoded()
        _ = try database.psql(
            SchemaVersion1Fixtures.queuedJob(
                name: "from-v1", jobID: "from-v1", kind: "insert-rows",
                contentsHex: contents.map { String(format: "%02x", $0) }.joined()))
        return database
    }

    private func session(_ database: Database) throws -> PostgresSession {
        try PostgresSession.connect(to: database.url, logger: Logger(label: "test"))
    }

    @Test func tablesOfTheFirstVersionAreMigratedAndTheirQueuedJobIsClaimedAndDone() async throws {
        let database = try databaseOfTheFirstVersion()
        let session = try session(database)
        defer { session.close() }
        let before = try JobTableMigrations.status(of: session)
        #expect(before.version == 1 && before.latestVersion == 9 && before.pending.map(\.version) == [2, 3, 4, 5, 6, 7, 8, 9])
        #expect(before.note == "tables made before versions were recorded")

        let jobs = try database.jobs()
        defer { jobs.close() }
        #expect(try database.psql("SELECT name, state FROM lineup_jobs") == "from-v1|queued")
        #expect(try jobs.counts() == JobCounts(queued: 1, running: 0, done: 0, failed: 0))
        #expect(
            try database.psql("SELECT line, version, name FROM lineup_migrations ORDER BY version")
                == "jobs|2|queued jobs stored as queued\njobs|3|job priorities and unique periods"
                + "\njobs|4|paused kinds and queues, rate-limited claims\njobs|5|cancellation requests\njobs|6|indexes for long histories"
                + "\njobs|7|storage parameters for churn\njobs|8|index entries only for jobs that have the key\njobs|9|the queue a job names")
        let after = try JobTableMigrations.status(of: session)
        #expect(after.version == 9 && after.pending.isEmpty && after.note == nil)
        // The constraint, the default and the partial indexes name the new value, and only it.
        let definitions = try snapshot(database).split(separator: "\n--\n").dropFirst(2).joined(separator: "\n")
        #expect(!definitions.contains("available"), "\(definitions)")
        #expect(definitions.contains("lineup_jobs_due ON public.lineup_jobs USING btree (priority, not_before, id) WHERE (state = 'queued'::text)"))
        // Version 8: the indexes of ids, of unique keys and of intake keys hold only the rows that have one.
        #expect(definitions.contains("lineup_jobs_job_id ON public.lineup_jobs USING btree (job_id) WHERE (job_id IS NOT NULL)"), "\(definitions)")
        #expect(
            definitions.contains(
                "lineup_jobs_unique_key ON public.lineup_jobs USING btree (unique_key) "
                    + "WHERE ((state = ANY (ARRAY['queued'::text, 'running'::text])) AND (unique_key IS NOT NULL))"), "\(definitions)")
        #expect(
            definitions.contains("CREATE UNIQUE INDEX lineup_jobs_intake_key ON public.lineup_jobs USING btree (intake_key) WHERE (intake_key IS NOT NULL)"),
            "\(definitions)")
        #expect(!definitions.contains("lineup_jobs_intake_key_key"), "\(definitions)")
        #expect(try database.psql("SELECT column_default FROM information_schema.columns WHERE table_name = 'lineup_jobs' AND column_name = 'state'") == "'queued'::text")

        // A daemon claims the job and does it.
        let harness = try DaemonHarness { $0.databaseURL = database.url }
        defer { harness.removeFiles() }
        var (events, run) = try await harness.start()
        try await events.finished("from-v1")
        _ = try await harness.daemon.flush()
        #expect(try database.counts() == JobCounts(queued: 0, running: 0, done: 1, failed: 0))
        #expect(try harness.rowsOnDisk() == 2)
        try await harness.stop(run)
    }

    @Test func aNewDatabaseIsCreatedAtTheLatestVersionByEachMigrationInTurn() throws {
        let database = try Database()
        let jobs = try database.jobs()
        jobs.close()
        #expect(
            try database.psql("SELECT line, version, name FROM lineup_migrations ORDER BY version")
                == "jobs|1|job and daemon tables\njobs|2|queued jobs stored as queued\njobs|3|job priorities and unique periods"
                + "\njobs|4|paused kinds and queues, rate-limited claims\njobs|5|cancellation requests\njobs|6|indexes for long histories"
                + "\njobs|7|storage parameters for churn\njobs|8|index entries only for jobs that have the key\njobs|9|the queue a job names")
        let session = try session(database)
        defer { session.close() }
        #expect(try JobTableMigrations.plan(of: session).isEmpty)
        // Version 7's storage parameters: the queue's table is vacuumed early, and the daemons'
        // table keeps room for its heartbeats' HOT updates.
        let options = try database.psql("SELECT relname, array_to_string(reloptions, ',') FROM pg_class WHERE relname IN ('lineup_jobs', 'lineup_daemons') ORDER BY relname")
        #expect(
            options == "lineup_daemons|fillfactor=50\nlineup_jobs|autovacuum_vacuum_scale_factor=0.01,"
                + "autovacuum_vacuum_threshold=1000,autovacuum_vacuum_insert_scale_factor=0.01,autovacuum_vacuum_insert_threshold=1000,"
                + "autovacuum_analyze_scale_factor=0.02,autovacuum_analyze_threshold=1000,autovacuum_vacuum_cost_delay=0", "\(options)")
    }

    @Test func aMigrationStopsAtTheVersionItIsToldAndGoesOnlyForward() throws {
        let database = try Database()
        let session = try session(database)
        defer { session.close() }
        let status = try JobTableMigrations.status(of: session)
        #expect(status.version == 0 && status.note == "no job tables yet" && status.pending.map(\.version) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let ran = try session.transaction { try JobTableMigrations.migrate(session, to: 1, logger: Logger(label: "test")) }
        #expect(ran.fromVersion == 0 && ran.toVersion == 1)
        #expect(try database.psql("SELECT column_default FROM information_schema.columns WHERE table_name = 'lineup_jobs' AND column_name = 'state'") == "'available'::text")
        let back = #expect(throws: StoreError.self) {
            try session.transaction { try JobTableMigrations.migrate(session, to: 0, logger: Logger(label: "test")) }
        }
        #expect(back?.message.contains("has job-table schema version 1, past 0: migrations only go forward") == true)
        // The plan a dry run prints is what migrating runs.
        let plan = try JobTableMigrations.plan(of: session)
        #expect(plan.migrations.map(\.version) == [2, 3, 4, 5, 6, 7, 8, 9])
        #expect(plan.statements.contains("UPDATE lineup_jobs SET state = 'queued' WHERE state = 'available'"))
        #expect(plan.statements.contains("INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 2, 'queued jobs stored as queued')"))
        #expect(plan.statements.last == "INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 9, 'the queue a job names')")
    }

    @Test func tablesOfANewerVersionAreRefusedNamingBothVersionsAndNothingChanges() async throws {
        let database = try Database()
        let jobs = try database.jobs()
        try jobs.enqueue([JobDatabase.Submission(name: "kept", contents: try JobFile(kind: "insert-rows", parameters: ["count": 1]).encoded())])
        jobs.close()
        _ = try database.psql("INSERT INTO lineup_migrations (line, version, name) VALUES ('jobs', 10, 'from a newer Lineup')")
        let before = try snapshot(database)

        let error = #expect(throws: StoreError.self) { try database.jobs() }
        #expect(error?.code == .storeNewerThanModel)
        #expect(
            error?.message
                == "\(database.url.absoluteString) has job-table schema version 10; this Lineup knows up to 9: upgrade Lineup to use it")
        #expect(try snapshot(database) == before)

        // A daemon refuses to start, naming both versions.
        let harness = try DaemonHarness { $0.databaseURL = database.url }
        defer { harness.removeFiles() }
        let refusal = await #expect(throws: DaemonError.self) { try await harness.daemon.run() }
        #expect(refusal?.code == .storeUnavailable)
        #expect("\(refusal.map { "\($0)" } ?? "")".contains("has job-table schema version 10; this Lineup knows up to 9"))
        #expect(try database.psql("SELECT count(*) FROM lineup_daemons") == "0")
        #expect(try database.psql("SELECT state FROM lineup_jobs") == "queued")
    }

    /// Four daemons open a database of the first version at once. The timeline: the test holds
    /// the migrations' advisory lock; the four opens start and all wait for it (seen in
    /// `pg_locks`); the test lets go; the first to get the lock migrates, and the three after it
    /// find the latest version and run nothing.
    @Test func daemonsOpeningAnOlderDatabaseTogetherMigrateItOnce() throws {
        let database = try databaseOfTheFirstVersion()
        let records = LogRecords()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let holder = try session(database)
        defer { holder.close() }
        let opened = OpenedDatabases()
        let url = database.url
        try holder.transaction {
            try holder.execute(JobTableMigrations.lockStatement)
            for _ in 0..<4 {
                Thread.detachNewThread {
                    let result = Result { try JobDatabase(url: url, logger: logger) }
                    opened.results.withLock { $0.append(result) }
                }
            }
            let waiting = """
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            let deadline = ContinuousClock.now + .seconds(60)
            while try database.psql(waiting) != "4" {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the four opens never waited for the lock together")
                    break
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            #expect(opened.results.withLock { $0.isEmpty }, "no open got past the lock the test holds")
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while opened.results.withLock({ $0.count }) < 4, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let results = opened.results.withLock { $0 }
        #expect(results.count == 4)
        for result in results {
            switch result {
            case let .success(jobs): jobs.close()
            case let .failure(error): Issue.record("an open failed: \(error)")
            }
        }
        let migrations = records.messages.filter { $0.message == "migrating a schema" }
        #expect(migrations.map { $0.metadata["version"] } == ["2", "3", "4", "5", "6", "7", "8", "9"], "one run of each migration: \(migrations)")
        #expect(try database.psql("SELECT line, version FROM lineup_migrations ORDER BY version") == "jobs|2\njobs|3\njobs|4\njobs|5\njobs|6\njobs|7\njobs|8\njobs|9")
        #expect(try database.psql("SELECT state FROM lineup_jobs") == "queued")
    }
}

/// What the threads that open a database at once hand back.
final class OpenedDatabases: Sendable {
    let results = Locked<[Result<JobDatabase, any Error>]>([])
}

/// What a ``RecordingLogHandler`` was told.
final class LogRecords: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    /// `Locked` (a pthread mutex), not `Mutex`: the opening threads log at once, and ThreadSanitizer
    /// follows pthread mutexes only.
    private let records = Locked<[Record]>([])

    var messages: [Record] { records.withLock { $0 } }

    func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }
}

/// Keeps every log message, for tests that count them.
struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append(
            LogRecords.Record(
                level: event.level, message: "\(event.message)",
                metadata: (event.metadata ?? [:]).mapValues { "\($0)" }))
    }
}
