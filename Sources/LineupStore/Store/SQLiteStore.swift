public import Foundation
import GRDB
import GRDBSQLite
public import Logging
import Synchronization

/// The SQLite persistent store, the embedded default (see `PersistentStore`): one database in WAL
/// mode, written only by the writer context's saves (one transaction each) and read concurrently
/// from WAL snapshots by every context.
///
/// Task contexts read with a pool of readers (`maximumReaderCount` of them), the main context
/// with a read-only connection reserved for it, the writer context with the writer connection:
/// a task's long read never holds up the main context or the writer (see `StoreReader`).
///
/// Opening checks that the file is ours: a database Lineup did not create, a corrupt file, or a
/// store written by a newer model is refused with a clear error and never rewritten. Adding an
/// entity or an optional property migrates the store in place.
public final class SQLiteStore: PersistentStore {
    /// The database file; its `-wal` and `-shm` files lie beside it.
    public let url: URL
    /// The store's UUID, drawn when the file was created and kept in its metadata (`store_uuid`):
    /// the ``ObjectID/storeIdentifier`` of its rows.
    public let identifier: UUID
    /// The model the store was opened with, and migrated to if it only adds entities or optional
    /// properties.
    public let model: ManagedObjectModel
    let pool: DatabasePool
    /// The main context's read-only connection (see `StoreReader.reserved`).
    let reservedReader: DatabaseQueue
    let logger: Logger
    private let nextPrimaryKey: Atomic<Int64>
    private let nextStampValue: Atomic<Int64>

    /// How many primary keys a context reserves at a time.
    static let primaryKeyBlock: Int64 = 4096
    /// `PRAGMA synchronous` for FULL: a commit waits until the WAL is on stable storage.
    static let synchronousFull = 2
    /// The WAL's size in pages past which a commit copies it into the database
    /// (`PRAGMA wal_autocheckpoint`; SQLite's default is 1,000, 4 MB). A flush of the daemon's
    /// default 25,000 rows writes about that much, so at SQLite's default every such flush was
    /// followed by a checkpoint that copied again the index and table pages the next flush would
    /// change anyway. At 4,000 pages (16 MB) a page is copied once for several flushes: the
    /// import benchmark's writer spent a fifth of its CPU time in checkpoints before, and the
    /// import took 5% less CPU time in all. The WAL is truncated at shutdown as before.
    static let checkpointPages = 4_000
    /// The pool's readers unless told otherwise: GRDB's default.
    public static let defaultReaderCount = 5

    /// Opens (or creates) the store at `url`. `maximumReaderCount` bounds the pool of readers
    /// that task contexts read with; the main context and the writer have connections of their
    /// own besides.
    public init(
        url: URL, model: ManagedObjectModel, logger: Logger, maximumReaderCount: Int = SQLiteStore.defaultReaderCount
    ) throws {
        precondition(maximumReaderCount > 0, "maximumReaderCount must be at least 1")
        self.url = url
        self.model = model
        self.logger = logger
        try Self.checkHeader(of: url)
        try Self.checkBeforeOpening(url, model: model)
        var configuration = Configuration()
        configuration.label = "lineup.store"
        configuration.busyMode = .timeout(10)
        configuration.maximumReaderCount = maximumReaderCount
        configuration.prepareDatabase { db in
            // Every commit is a flush that acknowledges jobs: it must survive a power loss too.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: url.path, configuration: configuration)
        } catch {
            throw StoreError(.storeCorrupt, "\(url.path): cannot open: \(error)", underlying: error)
        }
        // GRDB switches the writer connection to WAL after `prepareDatabase` has run, and sets
        // `synchronous = NORMAL` as it does: set FULL again on the writer, the only connection
        // that commits, and check that it holds. The writer is also the connection whose commits
        // checkpoint.
        do {
            let synchronous = try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.checkpointPages)")
                try db.execute(sql: "PRAGMA synchronous = FULL")
                return try Int.fetchOne(db, sql: "PRAGMA synchronous")
            }
            guard synchronous == Self.synchronousFull else {
                throw StoreError(
                    .sqlite, "\(url.path): PRAGMA synchronous is \(synchronous.map(String.init) ?? "unknown"), not FULL (2)")
            }
        } catch {
            try? pool.close()
            if let error = error as? StoreError { throw error }
            throw StoreError(.sqlite, "\(url.path): cannot set PRAGMA synchronous = FULL: \(error)", underlying: error)
        }
        self.pool = pool
        let opened: OpenedMetadata
        do {
            opened = try pool.write { db in try Self.prepareSchema(db, model: model, path: url.path, logger: logger) }
        } catch let error as StoreError {
            try? pool.close()
            throw error
        } catch {
            try? pool.close()
            throw StoreError(.storeCorrupt, "\(url.path): \(error)", underlying: error)
        }
        do {
            reservedReader = try Self.openReader(path: url.path, label: "lineup.store.main-reader")
        } catch {
            try? pool.close()
            throw StoreError(.sqlite, "\(url.path): cannot open the main context's reader: \(error)", underlying: error)
        }
        identifier = opened.identifier
        nextPrimaryKey = Atomic(opened.nextPrimaryKey)
        nextStampValue = Atomic(opened.nextStamp)
        logger.debug(
            "store opened",
            metadata: ["path": "\(url.path)", "store": "\(identifier)", "next_pk": "\(opened.nextPrimaryKey)"])
    }

    package var location: String { url.path }

    package func reservePrimaryKeys() -> Range<Int64> {
        let block = Self.primaryKeyBlock
        let first = nextPrimaryKey.wrappingAdd(block, ordering: .relaxed).oldValue
        return first..<(first + block)
    }

    package func nextStamp() -> Int64 {
        nextStampValue.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The next key and version not handed out yet.
    func counters() -> (nextPrimaryKey: Int64, nextStamp: Int64) {
        (nextPrimaryKey.load(ordering: .relaxed), nextStampValue.load(ordering: .relaxed))
    }

    /// Writes the WAL back into the database file and truncates it.
    public func checkpoint() throws {
        do {
            _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        } catch {
            throw StoreError(.sqlite, "\(url.path): checkpoint failed: \(error)", underlying: error)
        }
    }

    /// SQLite's `PRAGMA integrity_check`: "ok" for a sound database.
    public func integrityCheck() throws -> String {
        try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }

    /// Closes the store's connections, the main context's reader and the pool; the store is not
    /// used after it.
    public func close() throws {
        try reservedReader.close()
        try pool.close()
    }

    /// The number of rows of an entity on disk (saved data only); 0 for an entity the model lacks.
    public func rowCount(of entityName: String) throws -> Int {
        guard let entity = model.entity(named: entityName) else { return 0 }
        return try count(entity: entity, matching: .constant(true), on: .pooled)
    }

    // MARK: - Opening

    private struct OpenedMetadata {
        let identifier: UUID
        let nextPrimaryKey: Int64
        let nextStamp: Int64
    }

    private static func checkHeader(of url: URL) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if !header.isEmpty && header != Data("SQLite format 3\0".utf8) {
            throw StoreError(.storeCorrupt, "\(url.path) is not an SQLite database")
        }
    }

    /// Refuses, before anything opens it for writing, a database that Lineup did not create or
    /// that a newer Lineup or model wrote: a refused store is left byte for byte as it was, with
    /// its `-wal` and `-shm` (see ``StorePreflight``).
    private static func checkBeforeOpening(_ url: URL, model: ManagedObjectModel) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size > 0 else { return }
        let contents = try StorePreflight.read(url.path)
        guard let metadata = contents.metadata else {
            if contents.tables.isEmpty { return }
            throw StoreError(
                .storeNotOurs,
                "\(url.path) is an SQLite database that Lineup did not create (tables: \(contents.tables.sorted().joined(separator: ", ")))")
        }
        let (_, stored) = try StoreMetadata.identity(in: metadata, location: url.path)
        try StoreMetadata.checkCompatibility(of: stored, with: model, location: url.path)
    }

    private static func prepareSchema(_ db: Database, model: ManagedObjectModel, path: String, logger: Logger) throws -> OpenedMetadata {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        if !tables.contains("lineup_metadata") {
            if !tables.isEmpty {
                throw StoreError(
                    .storeNotOurs,
                    "\(path) is an SQLite database that Lineup did not create (tables: \(tables.sorted().joined(separator: ", ")))")
            }
            // The store's own tables, at the latest version, which the migrations record.
            try StoreSchema.sqlite.plan(from: 0, location: path).run(logger: logger) { try db.execute(sql: $0) }
            let identifier = UUID()
            try setMetadata(db, "format", StoreMetadata.format)
            try setMetadata(db, "store_uuid", identifier.uuidString)
            try setMetadata(db, "next_pk", "1")
            try setMetadata(db, "next_stamp", "1")
            for entity in model.entities {
                try createTable(db, entity.schema)
            }
            try setMetadata(db, "schema", StoreMetadata.encode(model.schema))
            return OpenedMetadata(identifier: identifier, nextPrimaryKey: 1, nextStamp: 1)
        }
        let metadata = Dictionary(
            uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM lineup_metadata").map {
                (String($0["key"] as String), String($0["value"] as String))
            })
        let (identifier, stored) = try StoreMetadata.identity(in: metadata, location: path)
        // In the opening's write transaction: a migration that fails leaves the store as it was.
        try StoreSchema.sqlite.plan(from: StoreSchema.version(in: metadata), location: path).run(logger: logger) {
            try db.execute(sql: $0)
        }
        let migrated = try migrate(db, from: stored, to: model, path: path)
        if migrated {
            try setMetadata(db, "schema", StoreMetadata.encode(model.schema))
        }
        var nextKey = Int64(metadata["next_pk"] ?? "1") ?? 1
        var nextStamp = Int64(metadata["next_stamp"] ?? "1") ?? 1
        for entity in model.entities {
            let table = quoted(entity.name)
            let maxima = try Row.fetchOne(db, sql: "SELECT max(pk), max(_version) FROM \(table)")
            nextKey = max(nextKey, ((maxima?[0] as Int64?) ?? 0) + 1)
            nextStamp = max(nextStamp, ((maxima?[1] as Int64?) ?? 0) + 1)
        }
        return OpenedMetadata(identifier: identifier, nextPrimaryKey: nextKey, nextStamp: nextStamp)
    }

    /// Adds what the model added (entities, optional properties, constraints); refuses
    /// everything else.
    private static func migrate(
        _ db: Database, from stored: [EntitySchema], to model: ManagedObjectModel, path: String
    ) throws -> Bool {
        // Checked before the pool opened too (`checkBeforeOpening`); again here, inside the
        // transaction, where the schema read is the one the migration writes over.
        try StoreMetadata.checkCompatibility(of: stored, with: model, location: path)
        let steps = StoreMetadata.migrationSteps(from: stored, to: model)
        for step in steps {
            switch step {
            case let .createTable(entity):
                try createTable(db, entity)
            case let .addColumn(entity, property):
                try db.execute(sql: "ALTER TABLE \(quoted(entity)) ADD COLUMN \(quoted(property.name)) \(property.type.sqlType)")
            case let .checkNoDuplicates(entity, constraint):
                try checkNoDuplicates(db, of: constraint, in: entity, path: path)
            case let .createIndexes(entity):
                try createIndexes(db, entity)
            }
        }
        return !steps.isEmpty
    }

    /// Refuses a new uniqueness constraint that existing rows break, naming them. Left to itself,
    /// `CREATE UNIQUE INDEX` would fail with SQLite's bare "UNIQUE constraint failed", naming
    /// neither the rows nor the way out. Rows with a NULL in the key hold no key (as in SQL and
    /// the contexts' check), so they never count. The migration runs in one transaction: the
    /// throw leaves the store as it was.
    private static func checkNoDuplicates(_ db: Database, of constraint: [String], in entityName: String, path: String) throws {
        let columns = constraint.map(quoted).joined(separator: ", ")
        let duplicates = """
            SELECT group_concat(pk, ', ') FROM (SELECT pk, \(columns) FROM \(quoted(entityName)) ORDER BY pk)
            WHERE \(constraint.map { "\(quoted($0)) IS NOT NULL" }.joined(separator: " AND "))
            GROUP BY \(columns) HAVING count(*) > 1 ORDER BY min(pk)
            """
        let shown = StoreMetadata.duplicateGroupsShown
        let groups = try String.fetchAll(db, sql: "\(duplicates) LIMIT \(shown + 1)")
        guard !groups.isEmpty else { return }
        let total = groups.count > shown ? try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(duplicates))") ?? groups.count : groups.count
        throw StoreMetadata.duplicateKeys(of: constraint, in: entityName, groups: groups, total: total, location: path)
    }

    private static func createTable(_ db: Database, _ entity: EntitySchema) throws {
        var columns = ["pk INTEGER PRIMARY KEY", "_version INTEGER NOT NULL"]
        for property in entity.properties {
            precondition(property.name != "pk" && property.name != "_version", "\(entity.name).\(property.name) is reserved")
            columns.append("\(quoted(property.name)) \(property.type.sqlType)")
        }
        try db.execute(sql: "CREATE TABLE \(quoted(entity.name)) (\(columns.joined(separator: ", ")))")
        try createIndexes(db, entity)
    }

    private static func createIndexes(_ db: Database, _ entity: EntitySchema) throws {
        for (number, constraint) in entity.uniquenessConstraints.enumerated() {
            try db.execute(
                sql: "CREATE UNIQUE INDEX IF NOT EXISTS \(quoted("\(entity.name)_unique_\(number)")) ON \(quoted(entity.name)) (\(constraint.map(quoted).joined(separator: ", ")))")
        }
        for (number, index) in entity.indexes.enumerated() {
            try db.execute(
                sql: "CREATE INDEX IF NOT EXISTS \(quoted("\(entity.name)_index_\(number)")) ON \(quoted(entity.name)) (\(index.map(quoted).joined(separator: ", ")))")
        }
    }

    static func setMetadata(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(
            sql: "INSERT INTO lineup_metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key, value])
    }
}
