public import Foundation
import GRDB
import LineupLocking

/// Reads the rows of a Core Data SQLite store, in place and strictly read-only.
///
/// The store is opened with `SQLITE_OPEN_READONLY`, together with its `-wal` file: a Core
/// Data store in WAL mode may hold every row in its `-wal` (the SurfJournal seed store
/// does), so a reader that copied or opened the `.sqlite` alone would see an empty store.
/// Nothing is ever written to the `.sqlite` or `-wal` file; SQLite may only update the
/// `-shm` index, and only when the user may write it. A store whose `-wal` is not beside it is
/// opened immutable, so that no `-shm` or `-wal` appears beside it (see `CoreDataStoreSource`).
///
/// Read-only access to a WAL-mode store needs its `-shm` file to exist or its directory to
/// be writable (so that SQLite can create it); otherwise opening throws
/// ``CoreDataStoreError/Code/walFilesUnavailable``. A store in a read-only directory with
/// all three files present is read fine.
///
/// Core Data upper-cases attribute names in column names (`waveHeight` is stored as
/// `ZWAVEHEIGHT`), so the original camel case is lost: attributes are named by the column
/// name without its `Z`, lower-cased (`waveheight`), unless the model's attribute names are
/// passed to ``init(url:attributeNames:)``. Entity names keep their case (`Z_PRIMARYKEY`
/// stores them as written).
///
/// The reader is `Sendable`; reads are serialized on one SQLite connection, which closes
/// when the reader is released or ``close()`` is called.
public final class CoreDataStoreReader: Sendable {
    /// The store file.
    public let url: URL
    /// The entities listed in `Z_PRIMARYKEY`, in `Z_ENT` order.
    public let entities: [CoreDataEntity]
    /// The store's UUID from `Z_METADATA` (`Z_UUID`), if recorded.
    public let storeUUID: String?
    /// What makes the rows read doubtful without stopping the read, e.g. a store in WAL mode
    /// whose `-wal` file is missing (``CoreDataStoreWarning/Code/walFileMissing``): show them
    /// with the result, never drop them.
    public let warnings: [CoreDataStoreWarning]

    private let database: GRDB.DatabaseQueue
    private let path: String
    /// What SQLite opened: the store, or a private copy of it.
    private let source: CoreDataStoreSource
    private struct State {
        /// Whether ``close()`` has run: SQLite must not be touched after that.
        var isClosed = false
        /// The reads under way, which ``close()`` waits for.
        var reads = 0
    }

    private let state = Locked(State())

    /// Opens the Core Data store at `url` read-only, with its `-wal` and `-shm` files.
    ///
    /// - Parameters:
    ///   - url: The `.sqlite` file of the store.
    ///   - attributeNames: The model's attribute names in their original case, e.g.
    ///     `["waveHeight", "stationID"]`. A column named `Z` + the upper-cased name takes
    ///     that name instead of the lower-cased default; other columns keep the default.
    /// - Throws: ``CoreDataStoreError``, naming the file: ``CoreDataStoreError/Code/fileNotFound``,
    ///   ``CoreDataStoreError/Code/notADatabase``, ``CoreDataStoreError/Code/notACoreDataStore``,
    ///   ``CoreDataStoreError/Code/walFilesUnavailable``, ``CoreDataStoreError/Code/cannotOpen``
    ///   or ``CoreDataStoreError/Code/malformedStore``.
    public init(url: URL, attributeNames: Set<String> = []) throws {
        let path = url.path
        self.url = url
        self.path = path
        let isWALMode = try Self.checkIsSQLiteFile(at: path)
        var warnings: [CoreDataStoreWarning] = []
        if isWALMode && !FileManager.default.fileExists(atPath: path + "-wal") {
            warnings.append(
                CoreDataStoreWarning(
                    code: .walFileMissing, path: path,
                    message:
                        "the store is in WAL mode and \(url.lastPathComponent)-wal is not beside it: the rows a Core Data app saved since its last checkpoint are in that file, so this store may read as partial or empty; copy the store with its -wal and -shm"
                ))
        }

        var configuration = GRDB.Configuration()
        configuration.readonly = true
        configuration.label = "LineupStore.CoreDataStoreReader"
        // A Core Data app writing the store at the same time holds its locks briefly.
        configuration.busyMode = .timeout(5)

        let source: CoreDataStoreSource
        do {
            source = try CoreDataStoreSource(storePath: path, isWALMode: isWALMode)
        } catch {
            throw CoreDataStoreError(code: .cannotOpen, path: path, reason: "cannot make a private copy to read", underlyingError: error)
        }
        let database: GRDB.DatabaseQueue
        let schema: Schema
        do {
            database = try GRDB.DatabaseQueue(path: source.openingPath, configuration: configuration)
            schema = try database.read { db in
                try Self.readSchema(db, path: path, attributeNames: attributeNames)
            }
        } catch let error as GRDB.DatabaseError {
            source.remove()
            throw Self.openError(error, path: path)
        } catch {
            source.remove()
            throw error
        }
        self.source = source
        self.database = database
        self.entities = schema.entities
        self.storeUUID = schema.storeUUID
        self.warnings = warnings
    }

    /// The entity of that name (case-sensitive, as in the model), if the store has it.
    public func entity(named name: String) -> CoreDataEntity? {
        entities.first { $0.name == name }
    }

    /// Streams the rows of an entity (and of its sub-entities) in ascending `Z_PK` order, in
    /// batches of at most `batchSize` rows, from one consistent snapshot of the store.
    ///
    /// Memory stays bounded by one batch whatever the table size: rows come from an SQLite
    /// cursor and each batch is released once `body` returns. `body` runs on the calling thread,
    /// while the read transaction is open, so it must not call back into this reader. An error
    /// thrown by `body` stops the iteration and is rethrown as is.
    ///
    /// - Parameters:
    ///   - name: The entity name, e.g. `JournalEntry`.
    ///   - batchSize: The largest number of rows passed to one call of `body`; at least 1.
    ///   - body: Receives each batch, in order.
    /// - Throws: ``CoreDataStoreError/Code/unknownEntity``, ``CoreDataStoreError/Code/readFailed``,
    ///   or the error thrown by `body`.
    public func forEachRow(
        ofEntity name: String,
        batchSize: Int = 1_000,
        _ body: ([CoreDataRow]) throws -> Void
    ) throws {
        precondition(batchSize > 0, "batchSize must be at least 1, got \(batchSize)")
        guard let entity = entity(named: name) else {
            let known = entities.map(\.name).joined(separator: ", ")
            throw CoreDataStoreError(
                code: .unknownEntity,
                path: path,
                reason: "no entity named '\(name)' (the store has: \(known))"
            )
        }
        let layout = CoreDataRowLayout(storePath: path, entityName: entity.name, names: entity.attributes.map(\.name))
        let sql = Self.selectSQL(for: entity)
        // GRDB runs the read's closure on the calling thread (a `DispatchQueue.sync` onto the
        // connection's queue), so `body` runs on the caller's thread between two steps of the
        // cursor: no thread of its own, no hand-over.
        var bodyError: (any Error)?
        do {
            try whileOpen {
                try database.read { db in
                    let cursor = try GRDB.Row.fetchCursor(db, sql: sql)
                    var batch: [CoreDataRow] = []
                    batch.reserveCapacity(batchSize)
                    var previousPrimaryKey = Int64.min
                    func hand() throws {
                        do {
                            try body(batch)
                        } catch {
                            bodyError = error
                            throw error
                        }
                        batch.removeAll(keepingCapacity: true)
                    }
                    while let row = try cursor.next() {
                        let made = try Self.makeRow(row, of: entity, layout: layout, path: path)
                        // SQLite walks the table's b-tree in key order; a damaged file can
                        // break that without SQLite noticing, and the promise of ascending
                        // keys with it (found by the core-data-store fuzzer).
                        guard made.primaryKey > previousPrimaryKey else {
                            throw CoreDataStoreError(
                                code: .malformedStore, path: path,
                                reason: "rows of \(entity.tableName) out of Z_PK order (\(made.primaryKey) after \(previousPrimaryKey)): the file is damaged; PRAGMA integrity_check says where")
                        }
                        previousPrimaryKey = made.primaryKey
                        batch.append(made)
                        if batch.count == batchSize { try hand() }
                    }
                    if !batch.isEmpty { try hand() }
                }
            }
        } catch {
            // The body's own errors are rethrown as they are.
            if let bodyError { throw bodyError }
            if let error = error as? CoreDataStoreError { throw error }
            throw CoreDataStoreError(
                code: .readFailed, path: path,
                reason: "reading the rows of \(entity.name) from table \(entity.tableName) failed",
                underlyingError: error)
        }
    }

    /// Runs `body` unless the reader is closed, and keeps ``close()`` waiting until it returns:
    /// SQLite must not be touched after the close (GRDB's closed connection is not safe to read).
    /// A count of reads rather than the lock held across them, since `body` runs the caller's code
    /// between the batches: `Locked`'s lock is never held while that runs.
    private func whileOpen(_ body: () throws -> Void) throws {
        let path = self.path
        try state.withLock { state in
            guard !state.isClosed else {
                throw CoreDataStoreError(code: .readFailed, path: path, reason: "the reader was closed")
            }
            state.reads += 1
        }
        defer { state.withLock { $0.reads -= 1 } }
        try body()
    }

    /// Closes the SQLite connection now rather than when the reader is released. Any later
    /// read throws ``CoreDataStoreError/Code/readFailed``; closing twice does nothing.
    public func close() throws {
        // Marked closed first, so that no read begins; then closed once the reads under way end.
        let isClosing = state.withLock(when: { $0.reads == 0 }) { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard isClosing else { return }
        defer { source.remove() }
        do {
            try database.close()
        } catch {
            throw CoreDataStoreError(code: .readFailed, path: path, reason: "closing the store failed", underlyingError: error)
        }
    }

    // MARK: - Reading rows

    /// Copies one cursor row (which SQLite reuses for the next step) into a detached row.
    /// The columns are Z_PK, Z_ENT, Z_OPT, then the attributes (see `selectSQL(for:)`).
    private static func makeRow(
        _ row: GRDB.Row, of entity: CoreDataEntity, layout: CoreDataRowLayout, path: String
    ) throws(CoreDataStoreError) -> CoreDataRow {
        var values: [CoreDataValue] = []
        values.reserveCapacity(entity.attributes.count)
        for index in 3..<(3 + entity.attributes.count) {
            values.append(value(row[index] as GRDB.DatabaseValue))
        }
        func integer(_ index: Int, _ column: String) throws(CoreDataStoreError) -> Int64? {
            try StrictColumn(row: row, index: index, name: column, table: entity.tableName, path: path).integer()
        }
        guard let primaryKey = try integer(0, "Z_PK") else {
            throw CoreDataStoreError(code: .malformedStore, path: path, reason: "a row of \(entity.tableName) has no Z_PK")
        }
        let entityNumber = try integer(1, "Z_ENT")
        let version = try integer(2, "Z_OPT")
        return CoreDataRow(
            primaryKey: primaryKey,
            entityNumber: entityNumber ?? entity.entityNumber,
            version: version ?? 0,
            layout: layout,
            values: values
        )
    }

    private static func selectSQL(for entity: CoreDataEntity) -> String {
        var columns = [
            "Z_PK",
            entity.hasEntityColumn ? "Z_ENT" : "NULL",
            entity.hasVersionColumn ? "Z_OPT" : "NULL",
        ]
        columns += entity.attributes.map(\.columnName.quotedDatabaseIdentifier)
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(entity.tableName.quotedDatabaseIdentifier)"
        if entity.sharesTable {
            sql += " WHERE Z_ENT IN (\(entity.rowEntityNumbers.map(String.init).joined(separator: ", ")))"
        }
        return sql + " ORDER BY Z_PK"
    }

    private static func value(_ databaseValue: GRDB.DatabaseValue) -> CoreDataValue {
        switch databaseValue.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob(data)
        }
    }
}
