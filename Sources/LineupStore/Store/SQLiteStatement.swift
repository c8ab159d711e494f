import Foundation
import GRDB
import GRDBSQLite

/// Direct use of a prepared statement through the C API. GRDB prepares and caches the
/// statements; binding and stepping here skips the per-row argument boxing that dominates bulk
/// inserts (DESIGN §5: GRDB's lower-level statement APIs close most of the gap to raw SQLite).
struct SQLiteStatement {
    let handle: OpaquePointer
    let connection: OpaquePointer?

    init(_ statement: Statement, in db: Database) {
        self.handle = statement.sqliteStatement
        self.connection = db.sqliteConnection
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ value: StoreValue, at index: Int32) {
        switch value {
        case .null:
            sqlite3_bind_null(handle, index)
        case let .integer(value):
            sqlite3_bind_int64(handle, index, value)
        case let .real(value):
            sqlite3_bind_double(handle, index, value)
        case let .text(value):
            var value = value
            value.withUTF8 { bytes in
                _ = sqlite3_bind_text(
                    handle, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count), sqliteTransient)
            }
        case let .blob(value):
            value.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
            }
        }
    }

    func bind(_ values: [StoreValue], startingAt first: Int32 = 1) {
        for (offset, value) in values.enumerated() {
            bind(value, at: first + Int32(offset))
        }
    }

    /// Steps once: true for a row, false when done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw sqliteError(code)
        }
    }

    func execute() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    func reset() {
        sqlite3_reset(handle)
    }

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func value(at column: Int32) -> StoreValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .null
        }
    }

    func sqliteError(_ code: Int32) -> StoreError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(code)"
        let primary = code & 0xff
        if primary == SQLITE_CONSTRAINT {
            return StoreError(.mergeConflict, "constraint violated: \(message)")
        }
        return StoreError(.sqlite, "\(message) (code \(code))")
    }
}

/// SQLITE_TRANSIENT, which the C macro defines as a cast that Swift cannot import.
let sqliteTransient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)
