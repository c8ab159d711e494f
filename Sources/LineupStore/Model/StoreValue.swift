public import Foundation

/// A value as the store keeps it: the storage classes of SQLite.
///
/// Dates are stored as seconds since 1970-01-01 UTC (`.real`), booleans as `.integer`, and to-one
/// relationships as the primary key of the destination (`.integer`). Typed accessors on
/// ``ManagedObject`` subclasses convert to and from Swift types through ``StoreValueConvertible``,
/// so domain code never handles a `StoreValue` directly.
public enum StoreValue: Sendable, Hashable {
    /// SQL NULL: a nil optional attribute, or a to-one relationship with no destination.
    case null
    /// A signed 64-bit integer: integers, booleans (0 or 1) and to-one relationships.
    case integer(Int64)
    /// A double: doubles, and dates as seconds since 1970-01-01 UTC.
    case real(Double)
    /// Text, compared by its UTF-8 bytes.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// Whether this is `.null`: a nil optional attribute, or a to-one relationship with no
    /// destination.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension StoreValue {
    /// Equality as the store decides it: text by its UTF-8 bytes, as SQLite's BINARY collation
    /// and unique indexes compare it. Swift's own `String ==` treats canonically equivalent
    /// strings as equal (`"é"` composed or decomposed), which the store does not: a context
    /// would miss a change the store sees, or match a row in memory that SQL does not.
    public static func == (lhs: StoreValue, rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.text(a), .text(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }

    /// Hashes as `==` compares: text by its UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case let .integer(value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case let .real(value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case let .text(value):
            hasher.combine(3 as UInt8)
            var text = value
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case let .blob(value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        }
    }
}

extension StoreValue: Comparable {
    /// SQLite's ordering: NULL < numbers < text < blobs; integers and reals compare numerically.
    public static func < (lhs: StoreValue, rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case let (.integer(a), .integer(b)): return a < b
        case let (.integer(a), .real(b)): return Double(a) < b
        case let (.real(a), .integer(b)): return a < Double(b)
        case let (.real(a), .real(b)): return a < b
        case (.integer, _), (.real, _): return true
        case (_, .integer), (_, .real): return false
        case let (.text(a), .text(b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case (.text, .blob): return true
        case (.blob, .text): return false
        case let (.blob(a), .blob(b)): return a.lexicographicallyPrecedes(b)
        }
    }
}

extension StoreValue: CustomStringConvertible {
    /// The value as SQL would spell it, for messages: `NULL`, `42`, `'text'` (unescaped), a blob as
    /// `<n bytes>`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case let .integer(value): return String(value)
        case let .real(value): return String(value)
        case let .text(value): return "'\(value)'"
        case let .blob(value): return "<\(value.count) bytes>"
        }
    }
}

/// The storage type of an attribute, and so of its column.
public enum AttributeType: String, Sendable, Hashable, Codable {
    /// `Int` or `Int64`: an `INTEGER` column.
    case integer
    /// `Double`: a `REAL` column.
    case double
    /// `String`: a `TEXT` column.
    case string
    /// `Date`: a `REAL` column of seconds since 1970-01-01 UTC.
    case date
    /// `Bool`: an `INTEGER` column of 0 or 1.
    case boolean
    /// `Data`: a `BLOB` column.
    case binary
    /// A to-one relationship: the destination's primary key.
    case reference

    var sqlType: String {
        switch self {
        case .integer, .boolean, .reference: return "INTEGER"
        case .double, .date: return "REAL"
        case .string: return "TEXT"
        case .binary: return "BLOB"
        }
    }

    /// The column type in PostgreSQL. Text compares by its bytes ("C"), as SQLite's BINARY
    /// collation and the contexts compare it, whatever the database's own collation.
    package var postgresType: String {
        switch self {
        case .integer, .boolean, .reference: return "BIGINT"
        case .double, .date: return "DOUBLE PRECISION"
        case .string: return "TEXT COLLATE \"C\""
        case .binary: return "BYTEA"
        }
    }
}

/// A Swift type that an attribute can hold.
public protocol StoreValueConvertible {
    /// The column type of an attribute of this type.
    static var attributeType: AttributeType { get }
    /// Whether the attribute may be NULL. Only `Optional` says yes.
    static var isOptionalAttribute: Bool { get }
    /// The value a column holds as this type; nil when it cannot be one (an accessor then
    /// returns the attribute's default).
    init?(storeValue: StoreValue)
    /// The value as the column stores it.
    var storeValue: StoreValue { get }
}

extension StoreValueConvertible {
    /// False: only `Optional` makes an attribute that may be NULL.
    public static var isOptionalAttribute: Bool { false }
}

extension Int: StoreValueConvertible {
    /// `.integer`: a 64-bit `INTEGER` column.
    public static var attributeType: AttributeType { .integer }
    /// The integer, or a real's whole part (toward zero); nil for other values or a real out of
    /// range.
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case let .integer(value): self = Int(value)
        // Another program may have written a real into the column (SQLite keeps it): its
        // whole part, or nil (the attribute's default) when it has none in range, never a trap.
        case let .real(value):
            guard let whole = Int(exactly: value.rounded(.towardZero)) else { return nil }
            self = whole
        default: return nil
        }
    }
    /// `.integer`, widened to 64 bits.
    @inlinable
    public var storeValue: StoreValue { .integer(Int64(self)) }
}

extension Int64: StoreValueConvertible {
    /// `.integer`: a 64-bit `INTEGER` column.
    public static var attributeType: AttributeType { .integer }
    /// The integer, or a real's whole part (toward zero); nil for other values or a real out of
    /// range.
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case let .integer(value): self = value
        case let .real(value):
            guard let whole = Int64(exactly: value.rounded(.towardZero)) else { return nil }
            self = whole
        default: return nil
        }
    }
    /// `.integer`.
    @inlinable
    public var storeValue: StoreValue { .integer(self) }
}

extension Double: StoreValueConvertible {
    /// `.double`: a `REAL` column.
    public static var attributeType: AttributeType { .double }
    /// The real, or an integer converted; nil for other values.
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case let .real(value): self = value
        case let .integer(value): self = Double(value)
        default: return nil
        }
    }
    /// `.real`.
    @inlinable
    public var storeValue: StoreValue { .real(self) }
}

extension String: StoreValueConvertible {
    /// `.string`: a `TEXT` column.
    public static var attributeType: AttributeType { .string }
    /// The text; nil for other values (a number is not converted).
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case let .text(value) = storeValue else { return nil }
        self = value
    }
    /// `.text`.
    @inlinable
    public var storeValue: StoreValue { .text(self) }
}

extension Bool: StoreValueConvertible {
    /// `.boolean`: an `INTEGER` column holding 0 or 1.
    public static var attributeType: AttributeType { .boolean }
    /// True for any integer but 0; nil for other values.
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case let .integer(value) = storeValue else { return nil }
        self = value != 0
    }
    /// `.integer(1)` for true, `.integer(0)` for false.
    @inlinable
    public var storeValue: StoreValue { .integer(self ? 1 : 0) }
}

extension Date: StoreValueConvertible {
    /// `.date`: a `REAL` column of seconds since 1970-01-01 UTC.
    public static var attributeType: AttributeType { .date }
    /// The date that many seconds after 1970-01-01 UTC, from a real or an integer; nil for other
    /// values.
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case let .real(value): self.init(timeIntervalSince1970: value)
        case let .integer(value): self.init(timeIntervalSince1970: Double(value))
        default: return nil
        }
    }
    /// `.real`: seconds since 1970-01-01 UTC.
    @inlinable
    public var storeValue: StoreValue { .real(timeIntervalSince1970) }
}

extension Data: StoreValueConvertible {
    /// `.binary`: a `BLOB` column.
    public static var attributeType: AttributeType { .binary }
    /// The bytes; nil for other values.
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case let .blob(value) = storeValue else { return nil }
        self = value
    }
    /// `.blob`.
    @inlinable
    public var storeValue: StoreValue { .blob(self) }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    /// The wrapped type's: an optional attribute has the column type of its value.
    public static var attributeType: AttributeType { Wrapped.attributeType }
    /// True: an optional attribute's column may hold NULL.
    public static var isOptionalAttribute: Bool { true }
    /// nil (the optional's `.none`) for `.null`, else the wrapped value; fails where the wrapped
    /// type fails.
    @inlinable
    public init?(storeValue: StoreValue) {
        if case .null = storeValue {
            self = .none
        } else if let wrapped = Wrapped(storeValue: storeValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
    /// `.null` for nil, else the wrapped value's.
    @inlinable
    public var storeValue: StoreValue { self?.storeValue ?? .null }
}
