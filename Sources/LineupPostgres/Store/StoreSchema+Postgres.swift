package import LineupStore
package import Logging

/// `lineup migrate` on a PostgreSQL store: its status and its pending migrations, under the lock
/// that `PostgresStore` takes to create or migrate its schema.
extension StoreSchema {
    /// The lock held, for its transaction, by whoever creates or migrates the store's schema.
    package static var postgresLock: String { "SELECT pg_advisory_xact_lock(\(PostgresStore.schemaLock))" }

    /// Where the store of `session`'s database stands, read without changing anything.
    package static func status(of session: PostgresSession, migrations: SchemaMigrations = postgres) throws -> SchemaStatus {
        guard let metadata = try metadata(of: session) else { return noStore(at: session.location, migrations) }
        return SchemaStatus(
            migrations, location: session.location, version: try recordedVersion(in: metadata, location: session.location))
    }

    /// What ``migrate(_:to:migrations:logger:)`` would run now, read without changing anything:
    /// what `--dry-run` prints. Empty where there is no store yet.
    package static func plan(of session: PostgresSession, to target: Int? = nil, migrations: SchemaMigrations = postgres) throws
        -> SchemaMigrationPlan
    {
        try migrations.plan(for: status(of: session, migrations: migrations), to: target)
    }

    /// Runs the store's pending migrations, up to `target` (the latest when nil), in one
    /// transaction that holds the store's schema lock and reads the version under it; returns
    /// what ran. Where there is no store yet, runs nothing: the first open creates it.
    package static func migrate(
        _ session: PostgresSession, to target: Int? = nil, migrations: SchemaMigrations = postgres, logger: Logger
    ) throws -> SchemaMigrationPlan {
        try session.transaction {
            try session.execute(postgresLock)
            let plan = try plan(of: session, to: target, migrations: migrations)
            try plan.run(logger: logger) { try session.execute($0) }
            return plan
        }
    }

    /// The `lineup_metadata` of the session's database; nil when it has none.
    private static func metadata(of session: PostgresSession) throws -> [String: String]? {
        let tables = try session.rows(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'lineup_metadata'")
        guard tables.first?.first != .integer(0) else { return nil }
        var metadata: [String: String] = [:]
        for row in try session.rows("SELECT key, value FROM lineup_metadata") {
            if case let .text(key) = row[0], case let .text(value) = row[1] { metadata[key] = value }
        }
        return metadata
    }
}
