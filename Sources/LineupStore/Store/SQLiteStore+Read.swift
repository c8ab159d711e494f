import Foundation
import GRDB

extension SQLiteStore {
    /// Runs a fetch with one cursor on one WAL snapshot (concurrently with the writer and other
    /// readers), handing out the rows in batches. The connection is held until the last batch has
    /// been handed out: a `body` that runs its caller's code needs `reader.forLongReads`.
    ///
    /// `body` runs inside GRDB's read, which runs its closure on the calling thread (a
    /// `DispatchQueue.sync` onto the connection's queue): so the caller's code runs on its own
    /// context's thread, between two steps of the cursor, with no thread of its own. An error that
    /// `body` throws ends the read and is rethrown as it is.
    package func enumerateRows(
        _ query: StoreQuery, batchSize: Int, on reader: StoreReader, _ body: ([(ObjectID, RowSnapshot)]) throws -> Void
    ) throws {
        var arguments: [StoreValue] = []
        let condition = query.predicate.sql(&arguments, .sqlite)
        try enumerateRows(query, condition: condition, arguments: arguments, batchSize: batchSize, on: reader, body)
    }

    /// ``enumerateRows(_:batchSize:on:_:)`` with the query's predicate compiled to `condition`.
    private func enumerateRows(
        _ query: StoreQuery, condition: String, arguments: [StoreValue], batchSize: Int, on reader: StoreReader,
        _ body: ([(ObjectID, RowSnapshot)]) throws -> Void
    ) throws {
        let entity = query.entity
        let propertyCount = entity.properties.count
        let selected = query.selectedProperties
        var arguments = arguments
        let sql = StoreSQL.select(query, where: condition, &arguments, .sqlite)
        let storeIdentifier = identifier
        let entityName = entity.name
        let nullRow = [StoreValue](repeating: .null, count: propertyCount)
        // `read(on:)` reports its own failures as store errors; the body's are the caller's.
        var bodyError: (any Error)?
        func hand(_ batch: [(ObjectID, RowSnapshot)]) throws {
            do {
                try body(batch)
            } catch {
                bodyError = error
                throw error
            }
        }
        do {
            try read(on: reader) { db in
                let statement = SQLiteStatement(try db.cachedStatement(sql: sql), in: db)
                statement.bind(arguments)
                defer { statement.reset() }
                var batch: [(ObjectID, RowSnapshot)] = []
                while try statement.step() {
                    var values = nullRow
                    for (column, index) in selected.enumerated() {
                        values[index] = statement.value(at: Int32(column + 2))
                    }
                    let id = ObjectID(storeIdentifier: storeIdentifier, entityName: entityName, primaryKey: statement.int64(at: 0))
                    batch.append((id, RowSnapshot(values: values, stamp: statement.int64(at: 1))))
                    if batch.count == batchSize {
                        try hand(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { try hand(batch) }
            }
        } catch {
            throw bodyError ?? error
        }
    }

    /// The saved rows of `ids`; missing rows are absent.
    package func fetchRows(ids: [ObjectID], entity: EntityDescription, on reader: StoreReader) throws -> [ObjectID: RowSnapshot] {
        var result: [ObjectID: RowSnapshot] = [:]
        let query = StoreQuery(entity: entity, predicate: .constant(true), sorts: [], limit: nil, offset: 0, columns: .all)
        for chunk in ids.chunked(500) {
            // Bound, not the predicate's `pk IN` of literals: one cached statement serves every
            // full chunk.
            let condition = "pk IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            try enumerateRows(
                query, condition: condition, arguments: chunk.map { .integer($0.primaryKey) }, batchSize: .max, on: reader
            ) { rows in
                for (id, row) in rows { result[id] = row }
            }
        }
        return result
    }

    /// Saved rows whose `indexes` properties equal one of `keys`, with those values. `keys` holds
    /// the keys one after the other, `indexes.count` values each.
    ///
    /// The keys are joined to the table (`CROSS JOIN` keeps them the outer loop), so that each key
    /// is one search of the table's unique index: `(a, b) IN (VALUES …)` would scan the table.
    package func fetchKeys(
        _ keys: [StoreValue], of indexes: [Int], entity: EntityDescription, on reader: StoreReader
    ) throws -> [(ObjectID, [StoreValue])] {
        let width = indexes.count
        let columns = indexes.map { "t." + quoted(entity.properties[$0].name) }
        let joins = columns.indices.map { "\(columns[$0]) = k.column\($0 + 1)" }.joined(separator: " AND ")
        let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ",") + ")"
        func sql(keyCount: Int) -> String {
            "SELECT t.pk, \(columns.joined(separator: ", ")) FROM (VALUES \(Array(repeating: tuple, count: keyCount).joined(separator: ","))) AS k CROSS JOIN \(quoted(entity.name)) AS t ON \(joins)"
        }
        let storeIdentifier = identifier
        return try read(on: reader) { db in
            var rows: [(ObjectID, [StoreValue])] = []
            // A few hundred keys per statement: one statement (cached) serves all full chunks.
            for chunk in keys.chunked(max(1, 500 / width) * width) {
                let statement = SQLiteStatement(try db.cachedStatement(sql: sql(keyCount: chunk.count / width)), in: db)
                statement.bind(Array(chunk))
                defer { statement.reset() }
                while try statement.step() {
                    let id = ObjectID(storeIdentifier: storeIdentifier, entityName: entity.name, primaryKey: statement.int64(at: 0))
                    rows.append((id, (0..<width).map { statement.value(at: Int32($0 + 1)) }))
                }
            }
            return rows
        }
    }

    /// The number of rows of `destination` that match `condition`, by the key their `inverse`
    /// column holds (rows with none are left out).
    package func relatedCounts(
        of destination: EntityDescription, inverse: String, matching predicate: PredicateNode, on reader: StoreReader
    ) throws -> [Int64: Int] {
        var arguments: [StoreValue] = []
        let sql = StoreSQL.relatedCounts(of: destination, inverse: inverse, matching: predicate, &arguments, .sqlite)
        return try read(on: reader) { db in
            let statement = SQLiteStatement(try db.cachedStatement(sql: sql), in: db)
            statement.bind(arguments)
            defer { statement.reset() }
            var counts: [Int64: Int] = [:]
            while try statement.step() {
                counts[statement.int64(at: 0)] = Int(statement.int64(at: 1))
            }
            return counts
        }
    }

    package func count(entity: EntityDescription, matching predicate: PredicateNode, on reader: StoreReader) throws -> Int {
        var arguments: [StoreValue] = []
        let sql = StoreSQL.count(of: entity, matching: predicate, &arguments, .sqlite)
        return try read(on: reader) { db in
            let statement = SQLiteStatement(try db.cachedStatement(sql: sql), in: db)
            statement.bind(arguments)
            defer { statement.reset() }
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    package func aggregate(_ query: AggregateQuery, on reader: StoreReader) throws -> [[String: StoreValue]] {
        var arguments: [StoreValue] = []
        let sql = query.sql(&arguments, .sqlite)
        return try read(on: reader) { db in
            let prepared = try db.cachedStatement(sql: sql)
            let names = prepared.columnNames
            let statement = SQLiteStatement(prepared, in: db)
            statement.bind(arguments)
            defer { statement.reset() }
            var rows: [[String: StoreValue]] = []
            while try statement.step() {
                var row: [String: StoreValue] = [:]
                for (column, name) in names.enumerated() { row[name] = statement.value(at: Int32(column)) }
                rows.append(row)
            }
            return rows
        }
    }

    /// Runs `body` on a read-only view of the store with the connection `reader` names.
    func read<T>(on reader: StoreReader, _ body: (Database) throws -> T) throws -> T {
        do {
            switch reader {
            case .pooled:
                return try pool.read(body)
            case .reserved:
                return try reservedReader.read(body)
            case .writer:
                // No transaction: only the writer context writes, and it is the one reading now,
                // so nothing changes between the statements of this read.
                return try pool.writeWithoutTransaction { db in try db.readOnly { try body(db) } }
            case .dedicated, .pooledLongRead:
                let connection = try Self.openReader(path: url.path, label: "lineup.store.dedicated-reader")
                defer { try? connection.close() }
                return try connection.read(body)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(url.path): read failed: \(error)", underlying: error)
        }
    }
}

extension SQLiteStore {
    /// A read-only connection to the store beside the pool's, configured as GRDB configures the
    /// pool's readers.
    static func openReader(path: String, label: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = label
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

extension Array {
    package func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
