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

    /// Binds a whole row whose text and blob bytes are first copied into `arena`, so that SQLite
    /// can use them in place (SQLITE_STATIC) instead of copying each value into memory of its own:
    /// the bulk writes of a save bind millions of strings. The bytes stay valid until the next
    /// row is bound with the same arena, which is after this row's step.
    func bindRow(_ values: [StoreValue], startingAt first: Int32, arena: BindingArena) {
        var needed = 0
        for value in values {
            switch value {
            case let .text(text): needed += text.utf8.count
            case let .blob(data): needed += data.count
            default: break
            }
        }
        let base = arena.storage(forAtLeast: needed)
        var offset = 0
        for index in values.indices {
            let column = first + Int32(index)
            switch values[index] {
            case let .text(text):
                var text = text
                let count = text.withUTF8 { bytes in
                    if let source = bytes.baseAddress, !bytes.isEmpty {
                        (base + offset).copyMemory(from: source, byteCount: bytes.count)
                    }
                    return bytes.count
                }
                sqlite3_bind_text(handle, column, (base + offset).assumingMemoryBound(to: CChar.self), Int32(count), nil)
                offset += count
            case let .blob(data):
                let count = data.count
                data.withUnsafeBytes { bytes in
                    if let source = bytes.baseAddress, count > 0 {
                        (base + offset).copyMemory(from: source, byteCount: count)
                    }
                }
                sqlite3_bind_blob(handle, column, base + offset, Int32(count), nil)
                offset += count
            case let other:
                bind(other, at: column)
            }
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

    /// Resets and forgets the bindings, e.g. those that point into a ``BindingArena`` about to go.
    func clearBindings() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
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
            // The extended code tells a unique index's refusal apart (see `isUniqueIndexViolation`).
            return StoreError(
                .mergeConflict, "constraint violated: \(message)",
                underlying: DatabaseError(resultCode: ResultCode(rawValue: code), message: message))
        }
        return StoreError(.sqlite, "\(message) (code \(code))")
    }
}

/// The bytes of one row's text and blob values, for ``SQLiteStatement/bindRow(_:startingAt:arena:)``:
/// one buffer reused row after row, grown when a row needs more.
final class BindingArena {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = Swift.max(capacity, 1)
        self.base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// At least `count` bytes. Growing frees the previous buffer: call only when the bindings
    /// of the previous row are no longer used (before binding the next row).
    func storage(forAtLeast count: Int) -> UnsafeMutableRawPointer {
        if count > capacity {
            base.deallocate()
            capacity = Swift.max(count, capacity * 2)
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }
        return base
    }
}

/// SQLITE_TRANSIENT, which the C macro defines as a cast that Swift cannot import.
let sqliteTransient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)
