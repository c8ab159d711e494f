import Foundation
import GRDB

extension SQLiteStore {
    /// Writes a change set as one transaction: checks every updated and deleted row's version
    /// (optimistic locking, resolved by `policy`), then deletes, updates and inserts with prepared
    /// statements, and records the key and version counters. All or nothing. Returns the
    /// exceptions (see ``AcceptedChange``).
    func save(_ changes: ChangeSet, policy: MergePolicy) throws -> [ObjectID: AcceptedChange] {
        // Segments of inserts have no version to check: they go to the table as they are. The
        // other changes are checked row by row.
        var inserts: [ChangeSegment] = []
        var others = ChangeSegment.Builder()
        for segment in changes.segments.reversed() {
            if segment.insertsOnly {
                inserts.insert(segment, at: 0)
            } else {
                for row in segment.rows { others.append(row.change, for: row.id) }
            }
        }
        let checked = others.build()
        do {
            return try pool.write { db in
                var toApply = checked
                var exceptions: [ObjectID: AcceptedChange] = [:]
                if !checked.insertsOnly {
                    var byEntity: [EntityDescription: [ObjectID]] = [:]
                    for row in checked.rows where row.change.kind != .insert {
                        byEntity[row.change.entity, default: []].append(row.id)
                    }
                    var current: [ObjectID: RowSnapshot] = [:]
                    for (entity, ids) in byEntity {
                        current.merge(try currentRows(ids, entity: entity, db)) { $1 }
                    }
                    let resolution = try ConflictResolution(checked, current: current, policy: policy, nextStamp: nextStamp)
                    toApply = resolution.toApply
                    exceptions = resolution.exceptions
                }
                try write(toApply, inserts: inserts, db)
                let counters = counters()
                try Self.setMetadata(db, "next_pk", String(counters.nextPrimaryKey))
                try Self.setMetadata(db, "next_stamp", String(counters.nextStamp))
                return exceptions
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

    /// Writes `changes` (checked row by row) and the segments of `inserts` (newest first). Deletes
    /// first, then updates, then inserts: a key freed by one row can be taken by another. Rows
    /// go in primary-key order, so that inserts append to the table's B-tree: segments are sorted,
    /// and written one after the other, lowest keys first.
    private func write(_ changes: ChangeSegment, inserts insertSegments: [ChangeSegment], _ db: Database) throws {
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
        for row in changes.rows where row.change.kind == .delete {
            let statement = try deletes.statement(for: row.change.entity)
            statement.bind(.integer(row.id.primaryKey), at: 1)
            try statement.execute()
        }
        for row in changes.rows where row.change.kind == .update {
            let statement = try updates.statement(for: row.change.entity)
            statement.bind(.integer(row.change.stamp), at: 1)
            statement.bindRow(row.change.values, startingAt: 2, arena: arena)
            statement.bind(.integer(row.id.primaryKey), at: Int32(row.change.entity.properties.count + 2))
            try statement.execute()
        }
        var segments = insertSegments
        if !changes.insertsOnly {
            var builder = ChangeSegment.Builder()
            for row in changes.rows where row.change.kind == .insert { builder.append(row.change, for: row.id) }
            segments.append(builder.build())
        } else {
            segments.append(changes)
        }
        for segment in Self.inKeyOrder(segments) {
            for index in segment.rows.indices {
                let statement = try inserts.statement(for: segment.rows[index].change.entity)
                statement.bind(.integer(segment.rows[index].id.primaryKey), at: 1)
                statement.bind(.integer(segment.rows[index].change.stamp), at: 2)
                statement.bindRow(segment.rows[index].change.values, startingAt: 3, arena: arena)
                try statement.execute()
            }
        }
    }

    /// Segments of inserts (newest first), as segments whose keys do not overlap, lowest first.
    /// Segments of different saves hold different keys, so this usually only orders them; the
    /// segments of a cluster whose key ranges overlap (jobs whose blocks of keys interleave) are
    /// merged into one, the newest change of a key winning.
    private static func inKeyOrder(_ segments: [ChangeSegment]) -> [ChangeSegment] {
        let ordered = segments.enumerated().filter { !$0.element.isEmpty }
            .sorted { $0.element.firstKey! < $1.element.firstKey! }
        var clusters: [[(age: Int, segment: ChangeSegment)]] = []
        var clusterEnd = Int64.min
        for (age, segment) in ordered {
            if !clusters.isEmpty && segment.firstKey! <= clusterEnd {
                clusters[clusters.count - 1].append((age, segment))
            } else {
                clusters.append([(age, segment)])
            }
            clusterEnd = max(clusterEnd, segment.lastKey!)
        }
        return clusters.map { cluster in
            guard cluster.count > 1 else { return cluster[0].segment }
            var builder = ChangeSegment.Builder(capacity: cluster.reduce(0) { $0 + $1.segment.count })
            // Oldest first: the builder keeps the last row appended for a key.
            for (_, segment) in cluster.sorted(by: { $0.age > $1.age }) {
                for row in segment.rows { builder.append(row.change, for: row.id) }
            }
            return builder.build()
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

extension SQLiteStore {
    func isUniqueKeyViolation(_ error: StoreError) -> Bool {
        guard let error = error.underlying as? DatabaseError else { return false }
        return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
    }
}
