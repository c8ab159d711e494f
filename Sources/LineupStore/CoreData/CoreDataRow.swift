public import Foundation

/// One row of a Core Data entity, detached from the database (safe to keep and to send).
///
/// Values are looked up by attribute name: the column name without its `Z` prefix,
/// lower-cased (`ZLOCATION` → `location`), or the original camel case when the reader was
/// given the model's attribute names (see ``CoreDataStoreReader/init(url:attributeNames:)``).
///
/// The typed accessors return nil for NULL and throw ``CoreDataStoreError`` when the
/// attribute does not exist or holds a value of another type, so that an import never
/// mistakes a type mismatch for a missing value.
public struct CoreDataRow: Sendable {
    /// The row's `Z_PK`.
    public let primaryKey: Int64
    /// The row's `Z_ENT`: the entity it belongs to, which differs from the entity iterated
    /// when the row is an instance of a sub-entity.
    public let entityNumber: Int64
    /// The row's `Z_OPT`, Core Data's optimistic-locking version (0 when the table has none).
    public let version: Int64

    let layout: CoreDataRowLayout
    let values: [CoreDataValue]

    init(primaryKey: Int64, entityNumber: Int64, version: Int64, layout: CoreDataRowLayout, values: [CoreDataValue]) {
        self.primaryKey = primaryKey
        self.entityNumber = entityNumber
        self.version = version
        self.layout = layout
        self.values = values
    }

    /// The attribute names, in the table's column order.
    public var attributeNames: [String] {
        layout.names
    }

    /// The stored value of an attribute, or nil when the row has no such attribute.
    public subscript(attribute: String) -> CoreDataValue? {
        layout.indexByName[attribute].map { values[$0] }
    }

    /// All attributes and their values.
    public var dictionary: [String: CoreDataValue] {
        Dictionary(uniqueKeysWithValues: zip(layout.names, values))
    }

    /// A text attribute; nil when NULL.
    public func string(_ attribute: String) throws -> String? {
        switch try value(of: attribute) {
        case .null: return nil
        case .text(let text): return text
        case let other: throw mismatch(attribute, other, expected: "TEXT")
        }
    }

    /// An integer attribute; nil when NULL. A REAL value is accepted when it is integral.
    public func int(_ attribute: String) throws -> Int? {
        switch try value(of: attribute) {
        case .null:
            return nil
        case .integer(let integer):
            guard let result = Int(exactly: integer) else {
                throw mismatch(attribute, .integer(integer), expected: "an integer that fits Int")
            }
            return result
        case .real(let real):
            guard let result = Int(exactly: real) else {
                throw mismatch(attribute, .real(real), expected: "an integral number")
            }
            return result
        case let other:
            throw mismatch(attribute, other, expected: "INTEGER")
        }
    }

    /// A floating-point attribute; nil when NULL. INTEGER values are converted.
    public func double(_ attribute: String) throws -> Double? {
        switch try value(of: attribute) {
        case .null: return nil
        case .real(let real): return real
        case .integer(let integer): return Double(integer)
        case let other: throw mismatch(attribute, other, expected: "REAL")
        }
    }

    /// A date attribute, stored by Core Data as seconds since 2001-01-01 00:00:00 UTC
    /// (`timeIntervalSinceReferenceDate`); nil when NULL.
    public func date(_ attribute: String) throws -> Date? {
        switch try value(of: attribute) {
        case .null: return nil
        case .real(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .integer(let seconds): return Date(timeIntervalSinceReferenceDate: Double(seconds))
        case let other: throw mismatch(attribute, other, expected: "a REAL date")
        }
    }

    /// A binary attribute; nil when NULL.
    public func data(_ attribute: String) throws -> Data? {
        switch try value(of: attribute) {
        case .null: return nil
        case .blob(let data): return data
        case let other: throw mismatch(attribute, other, expected: "BLOB")
        }
    }

    private func value(of attribute: String) throws -> CoreDataValue {
        guard let index = layout.indexByName[attribute] else {
            let known = layout.names.joined(separator: ", ")
            throw CoreDataStoreError(
                code: .unknownAttribute,
                path: layout.storePath,
                reason: "entity \(layout.entityName) has no attribute '\(attribute)' (it has: \(known))"
            )
        }
        return values[index]
    }

    private func mismatch(_ attribute: String, _ value: CoreDataValue, expected: String) -> CoreDataStoreError {
        CoreDataStoreError(
            code: .typeMismatch,
            path: layout.storePath,
            reason: "\(layout.entityName) Z_PK \(primaryKey): attribute '\(attribute)' holds \(value.storageClassName), expected \(expected)"
        )
    }
}

/// What every row of one iteration shares: names and where they point. Copying it copies
/// references only, so rows stay small.
struct CoreDataRowLayout: Sendable {
    let storePath: String
    let entityName: String
    let names: [String]
    let indexByName: [String: Int]

    init(storePath: String, entityName: String, names: [String]) {
        self.storePath = storePath
        self.entityName = entityName
        self.names = names
        self.indexByName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
