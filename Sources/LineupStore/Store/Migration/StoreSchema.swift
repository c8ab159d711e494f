/// The versions of a store's own tables: `lineup_metadata`, the outbox (`lineup_outbox`, of the
/// jobs enqueued with the data: version 2), and on PostgreSQL the sequences that hand out blocks
/// of keys and row versions.
///
/// The entities' tables are not part of it: they follow the model, and opening a store with a
/// model that adds entities or optional properties migrates them in place
/// (`StoreMetadata.migrationSteps`). These versions are of what Lineup keeps beside them, and
/// change only with Lineup.
///
/// A store records its version as `format_version` in `lineup_metadata`, as every store has
/// since the first: a store written before these migrations existed is at version 1, which
/// creates exactly what that Lineup created. Both engines have the same versions, each with its
/// own SQL. A store is created at the latest version by the migrations in the transaction that
/// creates it, and an older one is migrated in the transaction that opens it; a newer one is
/// refused, before anything opens it for writing.
package enum StoreSchema {
    package static let subject = "store schema"
    static let versionKey = "format_version"

    /// The store's migrations on SQLite.
    package static let sqlite = SchemaMigrations(
        subject: subject,
        migrations: [
            SchemaMigration(
                version: 1, name: "metadata table",
                statements: ["CREATE TABLE lineup_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)"]),
            SchemaMigration(
                version: 2, name: "outbox of jobs enqueued with the data",
                statements: [
                    "CREATE TABLE lineup_outbox (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, key TEXT NOT NULL UNIQUE, body BLOB NOT NULL)"
                ]),
        ],
        recording: recording)

    /// The store's migrations on PostgreSQL.
    package static let postgres = SchemaMigrations(
        subject: subject,
        migrations: [
            SchemaMigration(
                version: 1, name: "metadata table and key and version sequences",
                statements: [
                    "CREATE TABLE lineup_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                    // The blocks that PostgresStore takes (primaryKeyBlock, stampBlock), spelled
                    // out: a later change of block size is a migration of its own.
                    "CREATE SEQUENCE lineup_primary_keys INCREMENT BY 4096",
                    "CREATE SEQUENCE lineup_stamps INCREMENT BY 65536",
                ]),
            // The PostgreSQL daemon writes the jobs enqueued with the data into its jobs table, in
            // the flush's transaction; the outbox keeps those of a flush that no daemon made (a
            // program of its own, `lineup run`) until a daemon moves them there.
            SchemaMigration(
                version: 2, name: "outbox of jobs enqueued with the data",
                statements: [
                    "CREATE TABLE lineup_outbox (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, channel TEXT NOT NULL, "
                        + "key TEXT COLLATE \"C\" NOT NULL UNIQUE, body BYTEA NOT NULL)"
                ]),
        ],
        recording: recording)

    /// The newest store version this Lineup knows, the same on both engines.
    package static var latestVersion: Int { sqlite.latestVersion }

    /// Refuses a store at a version newer than this Lineup knows, naming both versions.
    static func checkKnown(_ version: Int, location: String) throws {
        try sqlite.checkKnown(version, location: location)
    }

    /// The version in a store's metadata, which `StoreMetadata.identity(in:location:)` has
    /// checked; 0 without one.
    package static func version(in metadata: [String: String]) -> Int {
        metadata[versionKey].flatMap(Int.init) ?? 0
    }

    /// The version a store's metadata records, refusing metadata that Lineup did not write (but
    /// not a newer version: `lineup migrate status` reports it).
    package static func recordedVersion(in metadata: [String: String], location: String) throws -> Int {
        guard metadata["format"] == StoreMetadata.format, let version = metadata[versionKey].flatMap(Int.init) else {
            throw StoreError(.storeNotOurs, "\(location) has a lineup_metadata table that Lineup did not write")
        }
        return version
    }

    /// The status of a place where no store is yet: the first open creates one at the latest
    /// version, so there is nothing to migrate.
    package static func noStore(at location: String, _ migrations: SchemaMigrations) -> SchemaStatus {
        SchemaStatus(
            subject: migrations.subject, location: location, version: 0, latestVersion: migrations.latestVersion,
            note: "no store yet: the first daemon or container to open it creates it at the latest version", pending: [])
    }

    /// Records the migration's version as the metadata's, in SQL that both engines run.
    package static func recording(_ migration: SchemaMigration) -> String {
        "INSERT INTO lineup_metadata (key, value) VALUES ('\(versionKey)', '\(migration.version)') "
            + "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    }
}
