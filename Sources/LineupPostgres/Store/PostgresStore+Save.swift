import Foundation
import LineupStore

extension PostgresStore {
    /// Writes a change set as one transaction: locks and checks every updated and deleted row's
    /// version (each conflict resolved by its change's merge policy, else by `policy`), then
    /// deletes, updates and inserts (see ``StoreWritePlan``), then runs the attached statements. All or nothing.
    func save(_ changes: ChangeSet, policy: MergePolicy, attaching statements: [FlushStatement]) throws -> [ObjectID: AcceptedChange] {
        var plan = StoreWritePlan(changes)
        return try writer.transaction {
            var current: [ObjectID: RowSnapshot] = [:]
            for (entity, ids) in plan.rowsToCheck {
                for chunk in ids.chunked(500) {
                    current.merge(try currentRows(chunk.map(\.primaryKey), entity: entity, lock: true, writer)) { $1 }
                }
            }
            try plan.resolve(current: current, policy: policy, nextStamp: nextStamp)
            try write(plan)
            for statement in statements {
                let changed: Int
                do {
                    changed = try writer.execute(statement.sql, statement.arguments)
                } catch let error as StoreError {
                    throw statement.failure(error)
                }
                try statement.check(changedRowCount: changed)
            }
            return plan.exceptions
        }
    }

    func isUniqueKeyViolation(_ error: StoreError) -> Bool {
        PostgresSession.sqlState(of: error.underlying) == "23505"
    }

    func executeBatch(
        entity: EntityDescription, matching predicate: PredicateNode,
        assignments: [(property: Int, value: StoreValue)]?, watched: [ObjectID], collectingIDs: Bool
    ) throws -> BatchOutcome {
        let table = quoted(entity.name)
        return try writer.transaction {
            var outcome = BatchOutcome()
            if collectingIDs {
                var arguments: [StoreValue] = []
                let condition = predicate.sql(&arguments, .postgres)
                outcome.affectedIDs = try writer.query("SELECT pk FROM \(table) WHERE \(condition) ORDER BY pk", arguments).map {
                    objectID(entity, try $0.storeValues()[0])
                }
            }
            var touched: [ObjectID] = []
            for chunk in watched.chunked(500) {
                var arguments: [StoreValue] = []
                let condition = predicate.sql(&arguments, .postgres)
                let first = arguments.count + 1
                arguments += chunk.map { .integer($0.primaryKey) }
                let list = (first...arguments.count).map { "$\($0)" }.joined(separator: ",")
                touched += try writer.query("SELECT pk FROM \(table) WHERE (\(condition)) AND pk IN (\(list))", arguments).map {
                    objectID(entity, try $0.storeValues()[0])
                }
            }
            if let assignments {
                var arguments = assignments.map(\.value) + [.integer(nextStamp())]
                let columns = assignments.indices.map { "\(quoted(entity.properties[assignments[$0].property].name)) = $\($0 + 1)" }
                    + ["_version = $\(arguments.count)"]
                let condition = predicate.sql(&arguments, .postgres)
                outcome.count = try writer.execute("UPDATE \(table) SET \(columns.joined(separator: ", ")) WHERE \(condition)", arguments)
                for chunk in touched.chunked(500) {
                    for (id, row) in try currentRows(chunk.map(\.primaryKey), entity: entity, lock: false, writer) {
                        outcome.watchedRows[id] = .stored(row)
                    }
                }
            } else {
                var arguments: [StoreValue] = []
                let condition = predicate.sql(&arguments, .postgres)
                for pairs in StoreSQL.pairDeletions(ofRowsOf: entity, in: model, matching: condition) {
                    _ = try writer.execute(pairs, arguments)
                }
                outcome.count = try writer.execute("DELETE FROM \(table) WHERE \(condition)", arguments)
                for id in touched { outcome.watchedRows[id] = .removed }
            }
            return outcome
        }
    }

    /// Writes the plan: deletes a chunk of keys per statement, updates a row per statement,
    /// inserts many rows per statement, lowest keys first.
    private func write(_ plan: StoreWritePlan) throws {
        var deletes: [EntityDescription: [Int64]] = [:]
        for row in plan.deletes { deletes[row.change.entity, default: []].append(row.id.primaryKey) }
        for (entity, keys) in deletes {
            for chunk in keys.chunked(500) {
                let list = (1...chunk.count).map { "$\($0)" }.joined(separator: ",")
                try writer.execute("DELETE FROM \(quoted(entity.name)) WHERE pk IN (\(list))", chunk.map { .integer($0) })
            }
        }
        for row in plan.updates {
            let entity = row.change.entity
            try checkStorable(row.change.values, of: row.id, entity: entity)
            let assignments = (["_version"] + entity.properties.map { quoted($0.name) }).enumerated().map { "\($1) = $\($0 + 1)" }
            try writer.execute(
                "UPDATE \(quoted(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE pk = $\(assignments.count + 1)",
                [.integer(row.change.stamp)] + row.change.values + [.integer(row.id.primaryKey)])
        }
        for segment in plan.insertsInKeyOrder {
            var start = segment.rows.startIndex
            while start < segment.rows.endIndex {
                // Rows of one entity, as many as one statement's parameters can carry.
                let entity = segment.rows[start].change.entity
                let width = entity.properties.count + 2
                let most = min(1000, Self.parameterLimit / width)
                var end = start
                while end < segment.rows.endIndex, end - start < most, segment.rows[end].change.entity === entity { end += 1 }
                var arguments: [StoreValue] = []
                arguments.reserveCapacity((end - start) * width)
                var tuples: [String] = []
                for row in segment.rows[start..<end] {
                    try checkStorable(row.change.values, of: row.id, entity: entity)
                    let first = arguments.count + 1
                    arguments.append(.integer(row.id.primaryKey))
                    arguments.append(.integer(row.change.stamp))
                    arguments += row.change.values
                    tuples.append("(" + (first..<(first + width)).map { "$\($0)" }.joined(separator: ",") + ")")
                }
                let columns = (["pk", "_version"] + entity.properties.map { quoted($0.name) }).joined(separator: ", ")
                try writer.execute(
                    "INSERT INTO \(quoted(entity.name)) (\(columns)) VALUES \(tuples.joined(separator: ","))", arguments)
                start = end
            }
        }
    }

    /// PostgreSQL's text holds no NUL character, which SQLite stores: refuse the row by name
    /// rather than let the server refuse the whole statement without one.
    private func checkStorable(_ values: [StoreValue], of id: ObjectID, entity: EntityDescription) throws {
        for (index, value) in values.enumerated() {
            if case let .text(text) = value, text.utf8.contains(0) {
                throw StoreError(
                    .validationFailed,
                    "\(id): \(entity.name).\(entity.properties[index].name) holds a NUL character, which PostgreSQL's text cannot store")
            }
        }
    }

    /// The most parameters one statement may bind (PostgreSQL's protocol counts them in 16 bits).
    static let parameterLimit = 65_535
}
