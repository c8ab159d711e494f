import GRDB

/// One column of a row of a Core Data store, read as the database value it is: GRDB's typed
/// subscripts (`row[0] as Int64?`) stop the process on a value they cannot convert, and a
/// damaged store may hold anything in any column (the core-data-store fuzzer put a blob in
/// `Z_PRIMARYKEY.Z_SUPER`). A value of the wrong type is refused as a malformed store.
struct StrictColumn {
    let row: GRDB.Row
    let index: Int
    let name: String
    let table: String
    let path: String

    /// The integer, or nil for NULL.
    func integer() throws(CoreDataStoreError) -> Int64? {
        switch (row[index] as GRDB.DatabaseValue).storage {
        case .null: return nil
        case .int64(let value): return value
        default: throw wrongType("an integer")
        }
    }

    /// The text, or nil for NULL.
    func text() throws(CoreDataStoreError) -> String? {
        switch (row[index] as GRDB.DatabaseValue).storage {
        case .null: return nil
        case .string(let value): return value
        default: throw wrongType("text")
        }
    }

    private func wrongType(_ expected: String) -> CoreDataStoreError {
        CoreDataStoreError(code: .malformedStore, path: path, reason: "a row of \(table) has a \(name) that is not \(expected)")
    }
}
