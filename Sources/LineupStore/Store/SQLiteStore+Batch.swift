import Foundation
import GRDB

/// What a batch statement did, as the store reports it to the contexts.
package struct BatchOutcome: Sendable {
    /// The number of rows deleted or updated.
    package var count = 0
    /// Every affected row's key, in key order, when asked for.
    package var affectedIDs: [ObjectID]?
    /// For the rows the contexts hold objects or changes of (see `ManagedObjectContext.execute`):
    /// what became of each one the statement touched.
    package var watchedRows: [ObjectID: AcceptedChange] = [:]

    package init() {}
}

extension SQLiteStore {
    /// Deletes (when `assignments` is nil) or updates the rows of `entity` that match `condition`,
    /// as one transaction, without loading them. An update gives every row it changes one new
    /// version, so that a context holding an older one sees a conflict, as after any other save.
    ///
    /// `watched` are the keys that some context holds: the outcome says which of them the
    /// statement touched, and their new rows, so that the contexts can take the change without
    /// being told every key (a prune can delete millions of rows).
    package func executeBatch(
        entity: EntityDescription, matching predicate: PredicateNode,
        assignments: [(property: Int, value: StoreValue)]?, watched: [ObjectID], collectingIDs: Bool
    ) throws -> BatchOutcome {
        var arguments: [StoreValue] = []
        let condition = predicate.sql(&arguments, .sqlite)
        let table = quoted(entity.name)
        do {
            return try pool.write { db in
                var outcome = BatchOutcome()
                if collectingIDs {
                    outcome.affectedIDs = try keys(
                        "SELECT pk FROM \(table) WHERE \(condition) ORDER BY pk", arguments, entity: entity, db)
                }
                var touched: [ObjectID] = []
                for chunk in watched.chunked(500) {
                    let list = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    touched += try keys(
                        "SELECT pk FROM \(table) WHERE (\(condition)) AND pk IN (\(list))",
                        arguments + chunk.map { .integer($0.primaryKey) }, entity: entity, db)
                }
                let statement: SQLiteStatement
                if let assignments {
                    let version = nextStamp()
                    let columns = assignments.map { "\(quoted(entity.properties[$0.property].name)) = ?" }
                    statement = SQLiteStatement(
                        try db.cachedStatement(
                            sql: "UPDATE \(table) SET \((columns + ["_version = ?"]).joined(separator: ", ")) WHERE \(condition)"),
                        in: db)
                    statement.bind(assignments.map(\.value) + [.integer(version)] + arguments)
                } else {
                    for pairs in StoreSQL.pairDeletions(ofRowsOf: entity, in: model, matching: condition) {
                        let deletion = SQLiteStatement(try db.cachedStatement(sql: pairs), in: db)
                        deletion.bind(arguments)
                        defer { deletion.reset() }
                        _ = try deletion.step()
                    }
                    statement = SQLiteStatement(try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(condition)"), in: db)
                    statement.bind(arguments)
                }
                defer { statement.reset() }
                _ = try statement.step()
                outcome.count = db.changesCount
                if assignments == nil {
                    for id in touched { outcome.watchedRows[id] = .removed }
                } else {
                    for (id, row) in try currentRows(touched, entity: entity, db) {
                        outcome.watchedRows[id] = .stored(row)
                    }
                    try Self.setMetadata(db, "next_stamp", String(counters().nextStamp))
                }
                return outcome
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(url.path): batch \(assignments == nil ? "delete" : "update") of \(entity.name) failed: \(error)", underlying: error)
        }
    }

    private func keys(_ sql: String, _ arguments: [StoreValue], entity: EntityDescription, _ db: Database) throws -> [ObjectID] {
        let statement = SQLiteStatement(try db.cachedStatement(sql: sql), in: db)
        statement.bind(arguments)
        defer { statement.reset() }
        var result: [ObjectID] = []
        while try statement.step() {
            result.append(ObjectID(storeIdentifier: identifier, entityName: entity.name, primaryKey: statement.int64(at: 0)))
        }
        return result
    }
}
