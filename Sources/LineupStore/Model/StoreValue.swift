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
        case let .real(value): self = Int(value)
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
        case let .real(value): self = Int64(value)
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
