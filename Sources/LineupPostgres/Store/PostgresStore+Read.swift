import Foundation
import LineupStore
import PostgresNIO

extension PostgresStore {
    func enumerateRows(
        _ query: StoreQuery, batchSize: Int, on reader: StoreReader, _ body: ([(ObjectID, RowSnapshot)]) throws -> Void
    ) throws {
        let entity = query.entity
        let propertyCount = entity.properties.count
        let selected = query.selectedProperties
        var arguments: [StoreValue] = []
        let condition = query.predicate.sql(&arguments, .postgres)
        let sql = StoreSQL.select(query, where: condition, &arguments, .postgres)
        let nullRow = [StoreValue](repeating: .null, count: propertyCount)
        func snapshots(_ rows: [[StoreValue]]) -> [(ObjectID, RowSnapshot)] {
            rows.map { row in
                var values = nullRow
                for (column, index) in selected.enumerated() { values[index] = row[column + 2] }
                return (objectID(entity, row[0]), RowSnapshot(values: values, stamp: row[1].integerValue))
            }
        }
        try withSession(for: reader) { session in
            guard batchSize != .max else {
                let rows = try session.query(sql, arguments).map { try $0.storeValues() }
                if !rows.isEmpty { try body(snapshots(rows)) }
                return
            }
            // A cursor hands the rows out batch by batch, from one snapshot, without holding them
            // all in memory (an export of millions of rows).
            try session.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                try session.execute("DECLARE lineup_rows NO SCROLL CURSOR FOR \(sql)", arguments)
                while true {
                    let rows = try session.query("FETCH FORWARD \(batchSize) FROM lineup_rows").map { try $0.storeValues() }
                    if !rows.isEmpty { try body(snapshots(rows)) }
                    if rows.count < batchSize { break }
                }
            }
        }
    }

    func fetchRows(ids: [ObjectID], entity: EntityDescription, on reader: StoreReader) throws -> [ObjectID: RowSnapshot] {
        var result: [ObjectID: RowSnapshot] = [:]
        try withSession(for: reader) { session in
            for chunk in ids.chunked(500) {
                for (id, row) in try currentRows(chunk.map(\.primaryKey), entity: entity, lock: false, session) {
                    result[id] = row
                }
            }
        }
        return result
    }

    func fetchKeys(
        _ keys: [StoreValue], of indexes: [Int], entity: EntityDescription, on reader: StoreReader
    ) throws -> [(ObjectID, [StoreValue])] {
        let width = indexes.count
        let columns = indexes.map { "t." + quoted(entity.properties[$0].name) }
        let names = (1...width).map { "c\($0)" }
        let joins = columns.indices.map { "\(columns[$0]) = k.\(names[$0])" }.joined(separator: " AND ")
        var rows: [(ObjectID, [StoreValue])] = []
        try withSession(for: reader) { session in
            for chunk in keys.chunked(max(1, 500 / width) * width) {
                let tuples = stride(from: 0, to: chunk.count, by: width).map { start in
                    "(" + (1...width).map { "$\(start + $0)" }.joined(separator: ",") + ")"
                }
                let sql = """
                    SELECT t.pk, \(columns.joined(separator: ", ")) FROM (VALUES \(tuples.joined(separator: ","))) \
                    AS k(\(names.joined(separator: ", "))) JOIN \(quoted(entity.name)) AS t ON \(joins)
                    """
                for row in try session.query(sql, Array(chunk)).map({ try $0.storeValues() }) {
                    rows.append((objectID(entity, row[0]), Array(row[1...])))
                }
            }
        }
        return rows
    }

    func relatedCounts(
        of destination: EntityDescription, inverse: String, matching predicate: PredicateNode, on reader: StoreReader
    ) throws -> [Int64: Int] {
        var arguments: [StoreValue] = []
        let sql = StoreSQL.relatedCounts(of: destination, inverse: inverse, matching: predicate, &arguments, .postgres)
        var counts: [Int64: Int] = [:]
        try withSession(for: reader) { session in
            for row in try session.query(sql, arguments).map({ try $0.storeValues() }) {
                counts[row[0].integerValue] = Int(row[1].integerValue)
            }
        }
        return counts
    }

    func count(entity: EntityDescription, matching predicate: PredicateNode, on reader: StoreReader) throws -> Int {
        var arguments: [StoreValue] = []
        let sql = StoreSQL.count(of: entity, matching: predicate, &arguments, .postgres)
        return try withSession(for: reader) { session in
            try session.query(sql, arguments).first.map { Int(try $0.storeValues()[0].integerValue) } ?? 0
        }
    }

    func aggregate(_ query: AggregateQuery, on reader: StoreReader) throws -> [[String: StoreValue]] {
        var arguments: [StoreValue] = []
        let sql = query.sql(&arguments, .postgres)
        return try withSession(for: reader) { session in
            try session.query(sql, arguments).map { row in
                var result: [String: StoreValue] = [:]
                for cell in row { result[cell.columnName] = try cell.storeValue() }
                return result
            }
        }
    }

    /// The stored rows of `keys` (missing rows are absent); with `lock`, locked until the end of
    /// the transaction, so that no other save changes them between a check and a write.
    func currentRows(
        _ keys: [Int64], entity: EntityDescription, lock: Bool, _ session: PostgresSession
    ) throws -> [ObjectID: RowSnapshot] {
        let columns = (["pk", "_version"] + entity.properties.map { quoted($0.name) }).joined(separator: ", ")
        guard !keys.isEmpty else { return [:] }
        let placeholders = (1...keys.count).map { "$\($0)" }.joined(separator: ",")
        let sql = "SELECT \(columns) FROM \(quoted(entity.name)) WHERE pk IN (\(placeholders))" + (lock ? " FOR UPDATE" : "")
        var result: [ObjectID: RowSnapshot] = [:]
        for row in try session.query(sql, keys.map { .integer($0) }).map({ try $0.storeValues() }) {
            result[objectID(entity, row[0])] = RowSnapshot(values: Array(row[2...]), stamp: row[1].integerValue)
        }
        return result
    }

    /// Runs `body` with the connection that `reader` names.
    func withSession<T>(for reader: StoreReader, _ body: (PostgresSession) throws -> T) throws -> T {
        switch reader {
        case .pooled, .pooledLongRead:
            return try pool.withSession(body)
        case .reserved:
            return try body(reserved)
        case .writer:
            return try body(writer)
        case .dedicated:
            let session = try connect()
            defer { session.close() }
            return try body(session)
        }
    }

    func objectID(_ entity: EntityDescription, _ key: StoreValue) -> ObjectID {
        ObjectID(storeIdentifier: identifier, entityName: entity.name, primaryKey: key.integerValue)
    }
}

extension StoreValue {
    /// The integer of an `.integer` value (keys, versions, counts); 0 for any other.
    var integerValue: Int64 {
        if case let .integer(value) = self { return value }
        return 0
    }
}
