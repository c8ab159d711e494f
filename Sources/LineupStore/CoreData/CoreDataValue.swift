public import Foundation

/// One value read from a Core Data SQLite store, in SQLite's storage classes.
///
/// Core Data stores dates as ``real(_:)`` seconds since 2001-01-01 00:00:00 UTC, booleans
/// as ``integer(_:)`` 0 or 1, and strings as ``text(_:)``; ``CoreDataRow``'s typed
/// accessors do those conversions.
public enum CoreDataValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// SQLite's name for the storage class, for error messages (never the value itself).
    var storageClassName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}
