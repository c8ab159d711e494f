public import Foundation

/// A value as the store keeps it: the storage classes of SQLite.
///
/// Dates are stored as seconds since 1970-01-01 UTC (`.real`), booleans as `.integer`, and to-one
/// relationships as the primary key of the destination (`.integer`). Typed accessors on
/// ``ManagedObject`` subclasses convert to and from Swift types through ``StoreValueConvertible``,
/// so domain code never handles a `StoreValue` directly.
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

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
    case integer
    case double
    case string
    case date
    case boolean
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
    var postgresType: String {
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
    static var attributeType: AttributeType { get }
    /// Whether the attribute may be NULL. Only `Optional` says yes.
    static var isOptionalAttribute: Bool { get }
    init?(storeValue: StoreValue)
    var storeValue: StoreValue { get }
}

extension StoreValueConvertible {
    public static var isOptionalAttribute: Bool { false }
}

extension Int: StoreValueConvertible {
    public static var attributeType: AttributeType { .integer }
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
    @inlinable
    public var storeValue: StoreValue { .integer(Int64(self)) }
}

extension Int64: StoreValueConvertible {
    public static var attributeType: AttributeType { .integer }
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
    @inlinable
    public var storeValue: StoreValue { .integer(self) }
}

extension Double: StoreValueConvertible {
    public static var attributeType: AttributeType { .double }
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case let .real(value): self = value
        case let .integer(value): self = Double(value)
        default: return nil
        }
    }
    @inlinable
    public var storeValue: StoreValue { .real(self) }
}

extension String: StoreValueConvertible {
    public static var attributeType: AttributeType { .string }
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case let .text(value) = storeValue else { return nil }
        self = value
    }
    @inlinable
    public var storeValue: StoreValue { .text(self) }
}

extension Bool: StoreValueConvertible {
    public static var attributeType: AttributeType { .boolean }
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case let .integer(value) = storeValue else { return nil }
        self = value != 0
    }
    @inlinable
    public var storeValue: StoreValue { .integer(self ? 1 : 0) }
}

extension Date: StoreValueConvertible {
    public static var attributeType: AttributeType { .date }
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case let .real(value): self.init(timeIntervalSince1970: value)
        case let .integer(value): self.init(timeIntervalSince1970: Double(value))
        default: return nil
        }
    }
    @inlinable
    public var storeValue: StoreValue { .real(timeIntervalSince1970) }
}

extension Data: StoreValueConvertible {
    public static var attributeType: AttributeType { .binary }
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case let .blob(value) = storeValue else { return nil }
        self = value
    }
    @inlinable
    public var storeValue: StoreValue { .blob(self) }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
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
    @inlinable
    public var storeValue: StoreValue { self?.storeValue ?? .null }
}
