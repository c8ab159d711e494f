import Foundation
import GRDBSQLite

/// A bare SQLite connection through the C API: what the baseline writes with, and what both
/// stores are read back with to check that they hold the same rows.
final class RawDatabase {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(code)"
            sqlite3_close(handle)
            throw BenchError(.sqlite, "\(path): cannot open: \(message)")
        }
    }

    deinit {
        sqlite3_close(handle)
    }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql)
        guard let statement else { throw BenchError(.sqlite, "\(path): empty statement: \(sql)") }
        return statement
    }

    /// The first row of a query, as text (numbers in SQLite's own text form).
    func firstRow(_ sql: String) throws -> [String] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_ROW else { try check(code, sql); return [] }
        return (0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL"
        }
    }

    /// Every row of a query, as text (NULL as "NULL").
    func rows(_ sql: String) throws -> [[String]] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        var rows: [[String]] = []
        while true {
            let code = sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                try check(code, sql)
                return rows
            }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL"
                })
        }
    }

    /// The column names of a table, in their order.
    func columns(of table: String) throws -> [String] {
        try rows("PRAGMA table_info(\"\(table)\")").map { $0[1] }
    }

    func check(_ code: Int32, _ what: String) throws {
        guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(code)"
            throw BenchError(.sqlite, "\(path): \(what): \(message) (code \(code))")
        }
    }

    /// A digest of a BenchEntry table: equal digests mean the same values in the same order
    /// (the sums run in primary-key order; the keys themselves may differ).
    static func benchEntryDigest(at path: String) throws -> [String] {
        let database = try RawDatabase(path: path, readOnly: true)
        return try database.firstRow(
            """
            SELECT count(*), count(rating), total(rating), total(date),
                   total(length(height)), total(length(period)), total(length(wind)), total(length(location)),
                   total(unicode(location) * rating)
            FROM "BenchEntry"
            """)
    }
}

/// SQLITE_TRANSIENT, which the C header defines as a cast that Swift cannot import.
let sqliteTransient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)
