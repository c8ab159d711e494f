package import Foundation
import GRDB
package import Logging

/// `lineup migrate` on an SQLite store: its status and its pending migrations, without a model
/// (the store's own tables do not depend on one) and without opening the store as a daemon does.
extension StoreSchema {
    /// How a migration's transaction begins on SQLite (GRDB's words for it): it takes the write
    /// lock at once, so that the version it reads is the one it migrates.
    package static let sqliteOpening = ["BEGIN IMMEDIATE TRANSACTION"]

    /// Where the SQLite store at `url` stands, read without changing a byte of it (see
    /// `StorePreflight`). A missing file is an error (a mistyped path); an empty one has no store
    /// yet.
    package static func status(ofSQLiteStoreAt url: URL, migrations: SchemaMigrations = sqlite) throws -> SchemaStatus {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.sqlite, "no store at \(path): no such file")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size > 0 else { return noStore(at: path, migrations) }
        let contents = try StorePreflight.read(path)
        guard let metadata = contents.metadata else {
            if contents.tables.isEmpty { return noStore(at: path, migrations) }
            throw StoreError(
                .storeNotOurs,
                "\(path) is an SQLite database that Lineup did not create (tables: \(contents.tables.sorted().joined(separator: ", ")))")
        }
        return SchemaStatus(migrations, location: path, version: try recordedVersion(in: metadata, location: path))
    }

    /// What ``migrateSQLiteStore(at:to:migrations:logger:)`` would run now, read without
    /// changing anything: what `--dry-run` prints. Empty where there is no store yet.
    package static func planSQLiteStore(at url: URL, to target: Int? = nil, migrations: SchemaMigrations = sqlite) throws
        -> SchemaMigrationPlan
    {
        try migrations.plan(for: status(ofSQLiteStoreAt: url, migrations: migrations), to: target)
    }

    /// Runs the store's pending migrations, up to `target` (the latest when nil), on the SQLite
    /// store at `url`, in one write transaction that reads the version again under SQLite's write
    /// lock; returns what ran. A store that is up to date, newer than this Lineup, or not there
    /// yet is not opened for writing at all.
    ///
    /// Hold the store's ownership lock (`<store>.lock`, as `lineup run` does) around it, so that no
    /// daemon has the store open meanwhile.
    package static func migrateSQLiteStore(
        at url: URL, to target: Int? = nil, migrations: SchemaMigrations = sqlite, logger: Logger
    ) throws -> SchemaMigrationPlan {
        let path = url.path
        let plan = try planSQLiteStore(at: url, to: target, migrations: migrations)
        guard !plan.isEmpty else { return plan }
        var configuration = Configuration()
        configuration.label = "lineup.migrate"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // As the store's own commits: a migration must survive a power loss too.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.writeWithoutTransaction { db in
                var ran = plan
                try db.inTransaction(.immediate) {
                    let metadata = Dictionary(
                        try Row.fetchAll(db, sql: "SELECT key, value FROM lineup_metadata").map {
                            (String($0["key"] as String), String($0["value"] as String))
                        },
                        uniquingKeysWith: { first, _ in first })
                    ran = try migrations.plan(from: try recordedVersion(in: metadata, location: path), to: target, location: path)
                    try ran.run(logger: logger) { try db.execute(sql: $0) }
                    return .commit
                }
                return ran
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(path): cannot migrate the \(migrations.subject): \(error)", underlying: error)
        }
    }
}
