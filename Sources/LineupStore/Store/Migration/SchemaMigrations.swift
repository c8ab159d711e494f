/// The ordered migrations of one schema (the store's own tables, the PostgreSQL job tables) in
/// one dialect, and how a database records the version it is at.
///
/// A database is at version 0 before its first migration, and at the version of the last
/// migration it recorded after. Opening one at an older version runs what is pending, under the
/// schema's lock; opening one at a newer version is refused before anything changes
/// (``checkKnown(_:location:)``): that Lineup knows statements this one does not.
package struct SchemaMigrations: Sendable {
    /// What the versions are of, as messages name it: "store schema", "job-table schema".
    package let subject: String
    /// Versions 1, 2, … in order.
    package let migrations: [SchemaMigration]
    /// What a run that migrates anything begins with, when its first migration does not make it:
    /// the table its versions are recorded in.
    let preamble: [String]
    /// The statement that records, in the migration's transaction, that the migration ran.
    let recording: @Sendable (SchemaMigration) -> String

    package init(
        subject: String, migrations: [SchemaMigration], preamble: [String] = [],
        recording: @escaping @Sendable (SchemaMigration) -> String
    ) {
        precondition(
            migrations.enumerated().allSatisfy { $0.element.version == $0.offset + 1 },
            "the migrations of the \(subject) are not numbered 1, 2, … in order")
        self.subject = subject
        self.migrations = migrations
        self.preamble = preamble
        self.recording = recording
    }

    /// The newest version this Lineup knows.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Refuses a database at a version newer than this Lineup knows, naming both versions.
    package func checkKnown(_ version: Int, location: String) throws {
        guard version <= latestVersion else {
            throw StoreError(
                .storeNewerThanModel,
                "\(location) has \(subject) version \(version); this Lineup knows up to \(latestVersion): "
                    + "upgrade Lineup to use it")
        }
    }

    /// What `lineup migrate` would run on a database whose schema stands at `status`: nothing
    /// where there is none of the schema yet (the first open creates it), else the migrations up
    /// to `target`.
    package func plan(for status: SchemaStatus, to target: Int? = nil) throws -> SchemaMigrationPlan {
        guard status.version > 0 else { return try plan(from: 0, to: 0, location: status.location) }
        return try plan(from: status.version, to: target, location: status.location)
    }

    /// The migrations that take a database at `version` to `target` (the latest when nil), with
    /// the statements that record them. Refuses a newer database, a target this Lineup does not
    /// know, and a target behind the database: migrations only go forward.
    package func plan(from version: Int, to target: Int? = nil, location: String) throws -> SchemaMigrationPlan {
        try checkKnown(version, location: location)
        let target = target ?? latestVersion
        guard target <= latestVersion else {
            throw StoreError(
                .migrationUnsupported,
                "\(location): there is no \(subject) version \(target); this Lineup knows up to \(latestVersion)")
        }
        guard target >= version else {
            throw StoreError(
                .migrationUnsupported,
                "\(location) has \(subject) version \(version), past \(target): migrations only go forward")
        }
        let pending = migrations.filter { $0.version > version && $0.version <= target }
        return SchemaMigrationPlan(
            subject: subject, location: location, fromVersion: version, migrations: pending,
            preamble: pending.isEmpty ? [] : preamble, recordings: pending.map(recording))
    }
}
