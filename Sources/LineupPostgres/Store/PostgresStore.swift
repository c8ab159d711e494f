import Foundation
import LineupStore
import Logging
import PostgresNIO

/// The PostgreSQL store: the same schema, semantics and refusals as ``SQLiteStore``, in a
/// database that several daemons on several hosts can share (DESIGN §6).
///
/// - Keys and row versions come in blocks from two sequences, so that no two processes ever hand
///   out the same one.
/// - A save is one transaction that locks the rows it checks (`SELECT … FOR UPDATE`): another
///   daemon's save of the same rows waits, then sees the new versions and meets a conflict, as a
///   second context does on SQLite.
/// - Text columns compare by bytes (`COLLATE "C"`) and NULL sorts first, as in SQLite, so a fetch
///   returns the same rows in the same order from either store. PostgreSQL's text holds no NUL
///   character: a save of one fails, naming the row, where SQLite would store it.
/// - Opening refuses a database that holds tables Lineup did not create, or that a newer model
///   wrote, inside a transaction that changes nothing; several daemons opening one new database
///   at once create its schema once (an advisory lock).
///
/// Task contexts read with a pool of connections (`maximumReaderCount`), the main context with a
/// connection reserved for it, the writer with its own, as on SQLite (see `StoreReader`).
final class PostgresStore: PersistentStore {
    let identifier: UUID
    let model: ManagedObjectModel
    /// The database URL without its password.
    let location: String
    let logger: Logger
    /// A new connection to the store's database: the pools' connections, and one for a read of
    /// its own (`StoreReader.dedicated`).
    let connect: @Sendable () throws -> PostgresSession
    let writer: PostgresSession
    let reserved: PostgresSession
    let pool: PostgresSessionPool
    /// The one connection that takes blocks of keys and versions (see `init`).
    private let sequences: PostgresSessionPool
    private let primaryKeys: SequenceBlocks
    private let stamps: SequenceBlocks

    /// How many primary keys a context reserves at a time, as on SQLite.
    static let primaryKeyBlock: Int64 = 4096
    /// How many row versions a process takes at a time: one round trip per that many changes.
    static let stampBlock: Int64 = 65_536
    /// Held (for its transaction) by whoever creates or migrates the schema.
    static let schemaLock = 0x6C69_6E65_7570  // "lineup"

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`) and
    /// creates or checks the schema. The URL's scheme must be `postgres` or `postgresql`.
    init(url: URL, model: ManagedObjectModel, logger: Logger, maximumReaderCount: Int) throws {
        precondition(maximumReaderCount > 0, "maximumReaderCount must be at least 1")
        let (configuration, location) = try Self.configuration(from: url, logger: logger)
        self.location = location
        self.model = model
        self.logger = logger
        let connect: @Sendable () throws -> PostgresSession = {
            try PostgresSession.connect(configuration, location: location, logger: logger)
        }
        self.connect = connect
        let writer = try connect()
        self.writer = writer
        do {
            identifier = try writer.transaction { try Self.prepareSchema(writer, model: model, location: location, logger: logger) }
            reserved = try connect()
        } catch {
            writer.close()
            throw error
        }
        pool = PostgresSessionPool(capacity: maximumReaderCount, connect: connect)
        // The blocks come through a connection of their own: a context asks for keys while it
        // may hold a pooled connection, and the writer's belongs to the writer's queue.
        let sequences = PostgresSessionPool(capacity: 1, connect: connect)
        primaryKeys = SequenceBlocks(logger: logger) {
            try sequences.withSession { session in try Self.takeBlock(of: "lineup_primary_keys", size: Self.primaryKeyBlock, session) }
        }
        stamps = SequenceBlocks(logger: logger) {
            try sequences.withSession { session in try Self.takeBlock(of: "lineup_stamps", size: Self.stampBlock, session) }
        }
        self.sequences = sequences
        logger.debug("store opened", metadata: ["database": "\(location)", "store": "\(identifier)"])
    }

    func reservePrimaryKeys() -> Range<Int64> {
        primaryKeys.nextBlock()
    }

    func nextStamp() -> Int64 {
        stamps.next()
    }

    /// Nothing to do: PostgreSQL keeps its own write-ahead log.
    func checkpoint() throws {}

    func close() throws {
        pool.close()
        sequences.close()
        reserved.close()
        writer.close()
    }

    func rowCount(of entityName: String) throws -> Int {
        guard let entity = model.entity(named: entityName) else { return 0 }
        return try count(entity: entity, matching: .constant(true), on: .pooled)
    }

    // MARK: - Opening

    /// The connector of `url`, read as libpq reads it over the process's `PG*` variables and
    /// password file (see `PostgresConnectionSettings`), and its location without the password.
    /// What libpq would warn of (a password file others can read) goes to `logger`.
    static func configuration(from url: URL, logger: Logger? = nil) throws -> (PostgresConnector, String) {
        let settings = try PostgresConnectionSettings(url: url, environment: .process)
        for warning in settings.warnings {
            logger?.warning("\(warning)", metadata: ["database": "\(settings.location)"])
        }
        return (PostgresConnector(settings), settings.location)
    }

    private static func takeBlock(of sequence: String, size: Int64, _ session: PostgresSession) throws -> Range<Int64> {
        guard let row = try session.query("SELECT nextval('\(sequence)')").first,
            case let .integer(first) = try row.storeValues()[0]
        else {
            throw StoreError(.postgres, "\(session.location): nextval('\(sequence)') returned nothing")
        }
        return first..<(first + size)
    }

    private static func prepareSchema(
        _ session: PostgresSession, model: ManagedObjectModel, location: String, logger: Logger
    ) throws -> UUID {
        try session.query("SELECT pg_advisory_xact_lock(\(schemaLock))")
        let tables = Set(
            try session.query("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()").map {
                try $0.storeValues()[0].textValue
            })
        guard tables.contains("lineup_metadata") else {
            // Lineup's own tables beside the store's (the daemon's jobs) may come first.
            let foreign = tables.filter { !$0.hasPrefix("lineup_") }
            guard foreign.isEmpty else {
                throw StoreError(
                    .storeNotOurs,
                    "\(location) holds tables that Lineup did not create (\(foreign.sorted().joined(separator: ", ")))")
            }
            let identifier = UUID()
            // The store's own tables and sequences, at the latest version, which the migrations record.
            try StoreSchema.postgres.plan(from: 0, location: location).run(logger: logger) { try session.execute($0) }
            try setMetadata(session, "format", StoreMetadata.format)
            try setMetadata(session, "store_uuid", identifier.uuidString)
            for entity in model.entities {
                try createTable(session, entity.schema)
            }
            try setMetadata(session, "schema", StoreMetadata.encode(model.schema))
            return identifier
        }
        var metadata: [String: String] = [:]
        for row in try session.query("SELECT key, value FROM lineup_metadata") {
            let values = try row.storeValues()
            metadata[values[0].textValue] = values[1].textValue
        }
        let (identifier, stored) = try StoreMetadata.identity(in: metadata, location: location)
        try StoreMetadata.checkCompatibility(of: stored, with: model, location: location)
        // Under the schema lock: daemons opening the store together migrate it once.
        try StoreSchema.postgres.plan(from: StoreSchema.version(in: metadata), location: location).run(logger: logger) {
            try session.execute($0)
        }
        if try migrate(session, from: stored, to: model, location: location) {
            try setMetadata(session, "schema", StoreMetadata.encode(model.schema))
        }
        return identifier
    }

    /// Adds what the model added (entities, optional properties, constraints); the caller has
    /// refused everything else. Runs in the opening transaction: a refusal leaves nothing behind.
    private static func migrate(
        _ session: PostgresSession, from stored: [EntitySchema], to model: ManagedObjectModel, location: String
    ) throws -> Bool {
        let steps = StoreMetadata.migrationSteps(from: stored, to: model)
        for step in steps {
            switch step {
            case let .createTable(entity):
                try createTable(session, entity)
            case let .addColumn(entity, property):
                try session.execute(
                    "ALTER TABLE \(quoted(entity)) ADD COLUMN \(quoted(property.name)) \(property.type.postgresType)")
            case let .checkNoDuplicates(entity, constraint):
                try checkNoDuplicates(session, of: constraint, in: entity, location: location)
            case let .createIndexes(entity):
                try createIndexes(session, entity)
            }
        }
        return !steps.isEmpty
    }

    /// Refuses a new uniqueness constraint that existing rows break, naming them (see
    /// `StoreMetadata.duplicateKeys`).
    private static func checkNoDuplicates(
        _ session: PostgresSession, of constraint: [String], in entityName: String, location: String
    ) throws {
        let columns = constraint.map(quoted).joined(separator: ", ")
        let duplicates = """
            SELECT string_agg(pk::text, ', ' ORDER BY pk) AS keys FROM \(quoted(entityName))
            WHERE \(constraint.map { "\(quoted($0)) IS NOT NULL" }.joined(separator: " AND "))
            GROUP BY \(columns) HAVING count(*) > 1
            """
        let shown = StoreMetadata.duplicateGroupsShown
        let groups = try session.query("\(duplicates) ORDER BY min(pk) LIMIT \(shown + 1)").map { try $0.storeValues()[0].textValue }
        guard !groups.isEmpty else { return }
        var total = groups.count
        if groups.count > shown, let row = try session.query("SELECT count(*) FROM (\(duplicates)) AS groups").first,
            case let .integer(count) = try row.storeValues()[0]
        {
            total = Int(count)
        }
        throw StoreMetadata.duplicateKeys(of: constraint, in: entityName, groups: groups, total: total, location: location)
    }

    private static func createTable(_ session: PostgresSession, _ entity: EntitySchema) throws {
        var columns = ["pk BIGINT PRIMARY KEY", "_version BIGINT NOT NULL"]
        for property in entity.properties {
            precondition(property.name != "pk" && property.name != "_version", "\(entity.name).\(property.name) is reserved")
            columns.append("\(quoted(property.name)) \(property.type.postgresType)")
        }
        try session.execute("CREATE TABLE \(quoted(entity.name)) (\(columns.joined(separator: ", ")))")
        try createIndexes(session, entity)
    }

    private static func createIndexes(_ session: PostgresSession, _ entity: EntitySchema) throws {
        for (number, constraint) in entity.uniquenessConstraints.enumerated() {
            try session.execute(
                "CREATE UNIQUE INDEX IF NOT EXISTS \(quoted("\(entity.name)_unique_\(number)")) ON \(quoted(entity.name)) (\(constraint.map(quoted).joined(separator: ", ")))")
        }
        for (number, index) in entity.indexes.enumerated() {
            try session.execute(
                "CREATE INDEX IF NOT EXISTS \(quoted("\(entity.name)_index_\(number)")) ON \(quoted(entity.name)) (\(index.map(quoted).joined(separator: ", ")))")
        }
    }

    private static func setMetadata(_ session: PostgresSession, _ key: String, _ value: String) throws {
        try session.execute(
            "INSERT INTO lineup_metadata (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(value)])
    }
}

extension PostgresRow {
    /// The row's cells as store values, in column order.
    func storeValues() throws -> [StoreValue] {
        try map { try $0.storeValue() }
    }
}

extension StoreValue {
    /// The text of a `.text` value; "" for any other (the catalogue's names are text).
    fileprivate var textValue: String {
        if case let .text(text) = self { return text }
        return ""
    }
}
