import Foundation
import GRDB

extension SQLiteStore {
    /// Writes a change set as one transaction: checks every updated and deleted row's version
    /// (optimistic locking, each conflict resolved by its change's merge policy, else by
    /// `policy`), then deletes, updates and inserts with prepared statements (see
    /// ``StoreWritePlan``), records the key and version counters, and runs the attached
    /// statements. All or nothing. Returns the exceptions (see ``AcceptedChange``).
    package func save(_ changes: ChangeSet, policy: MergePolicy, attaching statements: [FlushStatement]) throws -> [ObjectID: AcceptedChange] {
        var plan = StoreWritePlan(changes)
        do {
            return try pool.write { db in
                var current: [ObjectID: RowSnapshot] = [:]
                for (entity, ids) in plan.rowsToCheck {
                    current.merge(try currentRows(ids, entity: entity, db)) { $1 }
                }
                try plan.resolve(current: current, policy: policy, nextStamp: nextStamp)
                try write(plan, db)
                let counters = counters()
                try Self.setMetadata(db, "next_pk", String(counters.nextPrimaryKey))
                try Self.setMetadata(db, "next_stamp", String(counters.nextStamp))
                for statement in statements { try run(statement, db) }
                return plan.exceptions
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(url.path): save failed: \(error)", underlying: error)
        }
    }

    func currentRows(_ ids: [ObjectID], entity: EntityDescription, _ db: Database) throws -> [ObjectID: RowSnapshot] {
        let columns = (["pk", "_version"] + entity.properties.map { quoted($0.name) }).joined(separator: ", ")
        var result: [ObjectID: RowSnapshot] = [:]
        for chunk in ids.chunked(500) {
            let sql = "SELECT \(columns) FROM \(quoted(entity.name)) WHERE pk IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            let statement = SQLiteStatement(try db.cachedStatement(sql: sql), in: db)
            statement.bind(chunk.map { .integer($0.primaryKey) })
            defer { statement.reset() }
            while try statement.step() {
                let id = ObjectID(storeIdentifier: identifier, entityName: entity.name, primaryKey: statement.int64(at: 0))
                let values = entity.properties.indices.map { statement.value(at: Int32($0 + 2)) }
                result[id] = RowSnapshot(values: values, stamp: statement.int64(at: 1))
            }
        }
        return result
    }

    /// Runs a caller's statement in the save's transaction. GRDB runs it, not the C API as for
    /// the rows: it checks the number of arguments, and learns of a schema the statement changes.
    private func run(_ statement: FlushStatement, _ db: Database) throws {
        let changedBefore = db.totalChangesCount
        do {
            try db.makeStatement(sql: statement.sql).execute(arguments: StatementArguments(statement.arguments.map(\.databaseValue)))
        } catch {
            throw statement.failure(StoreError(.sqlite, "\(url.path): \(error)", underlying: error))
        }
        // SQLite's count of changes is that of the last INSERT, UPDATE or DELETE: a statement of
        // another kind (CREATE TABLE) changed nothing, whatever the last one did.
        try statement.check(changedRowCount: db.totalChangesCount == changedBefore ? 0 : db.changesCount)
    }

    /// Writes the plan with prepared statements. Rows go in primary-key order, so that inserts
    /// append to the table's B-tree.
    private func write(_ plan: StoreWritePlan, _ db: Database) throws {
        let arena = BindingArena()
        var deletes = Statements(db) { entity in "DELETE FROM \(quoted(entity.name)) WHERE pk = ?" }
        var updates = Statements(db) { entity in
            let assignments = (["_version = ?"] + entity.properties.map { "\(quoted($0.name)) = ?" }).joined(separator: ", ")
            return "UPDATE \(quoted(entity.name)) SET \(assignments) WHERE pk = ?"
        }
        var inserts = Statements(db) { entity in
            let columns = (["pk", "_version"] + entity.properties.map { quoted($0.name) }).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: entity.properties.count + 2).joined(separator: ", ")
            return "INSERT INTO \(quoted(entity.name)) (\(columns)) VALUES (\(placeholders))"
        }
        defer {
            deletes.clearBindings()
            updates.clearBindings()
            inserts.clearBindings()
        }
        for row in plan.deletes {
            let statement = try deletes.statement(for: row.change.entity)
            statement.bind(.integer(row.id.primaryKey), at: 1)
            try statement.execute()
        }
        for row in plan.updates {
            let statement = try updates.statement(for: row.change.entity)
            statement.bind(.integer(row.change.stamp), at: 1)
            statement.bindRow(row.change.values, startingAt: 2, arena: arena)
            statement.bind(.integer(row.id.primaryKey), at: Int32(row.change.entity.properties.count + 2))
            try statement.execute()
        }
        for segment in plan.insertsInKeyOrder {
            for index in segment.rows.indices {
                let statement = try inserts.statement(for: segment.rows[index].change.entity)
                statement.bind(.integer(segment.rows[index].id.primaryKey), at: 1)
                statement.bind(.integer(segment.rows[index].change.stamp), at: 2)
                statement.bindRow(segment.rows[index].change.values, startingAt: 3, arena: arena)
                try statement.execute()
            }
        }
    }
}

/// The prepared statement of each entity for one kind of write, made on first use (a save touches
/// a handful of entities: a linear search by identity beats hashing for each row).
private struct Statements {
    let db: Database
    let sql: (EntityDescription) -> String
    private var statements: [(entity: EntityDescription, statement: SQLiteStatement)] = []
    private var last = 0

    init(_ db: Database, sql: @escaping (EntityDescription) -> String) {
        self.db = db
        self.sql = sql
    }

    mutating func statement(for entity: EntityDescription) throws -> SQLiteStatement {
        if last < statements.count, statements[last].entity === entity { return statements[last].statement }
        if let index = statements.firstIndex(where: { $0.entity === entity }) {
            last = index
            return statements[index].statement
        }
        let statement = SQLiteStatement(try db.cachedStatement(sql: sql(entity)), in: db)
        statements.append((entity, statement))
        last = statements.count - 1
        return statement
    }

    /// Forgets the bindings, which may point into a ``BindingArena`` that is about to go.
    func clearBindings() {
        for (_, statement) in statements { statement.clearBindings() }
    }
}

extension StoreValue {
    fileprivate var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case let .integer(value): return value.databaseValue
        case let .real(value): return value.databaseValue
        case let .text(value): return value.databaseValue
        case let .blob(value): return value.databaseValue
        }
    }
}

extension SQLiteStore {
    package func isUniqueKeyViolation(_ error: StoreError) -> Bool {
        guard let error = error.underlying as? DatabaseError else { return false }
        return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
    }
}
