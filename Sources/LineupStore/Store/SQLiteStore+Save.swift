import Foundation
import GRDB

extension SQLiteStore {
    /// Writes a change set as one transaction: checks every updated and deleted row's version
    /// (optimistic locking, resolved by `policy`), then deletes, updates and inserts with prepared
    /// statements, and records the key and version counters. All or nothing.
    func save(_ changes: ChangeSet, policy: MergePolicy) throws -> [ObjectID: AcceptedChange] {
        do {
            return try pool.write { db in
                var byEntity: [EntityDescription: [ObjectID]] = [:]
                for (id, change) in changes where change.kind != .insert {
                    byEntity[change.entity, default: []].append(id)
                }
                var current: [ObjectID: RowSnapshot] = [:]
                for (entity, ids) in byEntity {
                    current.merge(try currentRows(ids, entity: entity, db)) { $1 }
                }
                let resolution = try ConflictResolution(changes, current: current, policy: policy, nextStamp: nextStamp)
                try write(resolution.toApply, db)
                let counters = counters()
                try Self.setMetadata(db, "next_pk", String(counters.nextPrimaryKey))
                try Self.setMetadata(db, "next_stamp", String(counters.nextStamp))
                return resolution.results
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(url.path): save failed: \(error)", underlying: error)
        }
    }

    private func currentRows(_ ids: [ObjectID], entity: EntityDescription, _ db: Database) throws -> [ObjectID: RowSnapshot] {
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

    private func write(_ changes: [(ObjectID, RowChange)], _ db: Database) throws {
        var deletes: [EntityDescription: [Int64]] = [:]
        var updates: [EntityDescription: [(Int64, RowChange)]] = [:]
        var inserts: [EntityDescription: [(Int64, RowChange)]] = [:]
        for (id, change) in changes {
            switch change.kind {
            case .delete: deletes[change.entity, default: []].append(id.primaryKey)
            case .update: updates[change.entity, default: []].append((id.primaryKey, change))
            case .insert: inserts[change.entity, default: []].append((id.primaryKey, change))
            }
        }
        // Deletes first, then updates, then inserts: a key freed by one row can be taken by another.
        for (entity, keys) in deletes {
            let statement = try db.cachedStatement(sql: "DELETE FROM \(quoted(entity.name)) WHERE pk = ?")
            for key in keys.sorted() {
                let delete = SQLiteStatement(statement, in: db)
                delete.bind(.integer(key), at: 1)
                try delete.execute()
            }
        }
        for (entity, rows) in updates {
            let assignments = (["_version = ?"] + entity.properties.map { "\(quoted($0.name)) = ?" }).joined(separator: ", ")
            let statement = try db.cachedStatement(sql: "UPDATE \(quoted(entity.name)) SET \(assignments) WHERE pk = ?")
            let keyIndex = Int32(entity.properties.count + 2)
            for (key, change) in rows.sorted(by: { $0.0 < $1.0 }) {
                let update = SQLiteStatement(statement, in: db)
                update.bind(.integer(change.stamp), at: 1)
                update.bind(change.values, startingAt: 2)
                update.bind(.integer(key), at: keyIndex)
                try update.execute()
            }
        }
        for (entity, rows) in inserts {
            let columns = (["pk", "_version"] + entity.properties.map { quoted($0.name) }).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: entity.properties.count + 2).joined(separator: ", ")
            let statement = try db.cachedStatement(sql: "INSERT INTO \(quoted(entity.name)) (\(columns)) VALUES (\(placeholders))")
            for (key, change) in rows.sorted(by: { $0.0 < $1.0 }) {
                let insert = SQLiteStatement(statement, in: db)
                insert.bind(.integer(key), at: 1)
                insert.bind(.integer(change.stamp), at: 2)
                insert.bind(change.values, startingAt: 3)
                try insert.execute()
            }
        }
    }
}
