import Foundation

/// A typed predicate over an entity's properties, built from key paths, compiled to SQL by the
/// store (and evaluated in memory against unsaved changes, with the same semantics):
///
/// ```swift
/// let good: FetchPredicate<JournalEntry> = \.rating >= 4 && \.location == "Santa Cruz"
/// ```
///
/// Comparisons follow SQL: a comparison with NULL is false, except `== nil` and `!= nil`.
public struct FetchPredicate<Object: ManagedObject>: Sendable {
    let node: PredicateNode

    init(_ node: PredicateNode) { self.node = node }

    /// Matches every row: a fetch's default.
    public static var all: FetchPredicate { FetchPredicate(.constant(true)) }
    /// Matches no row.
    public static var none: FetchPredicate { FetchPredicate(.constant(false)) }

    /// The property's text value contains `substring` as a run of bytes, ignoring the case of
    /// ASCII letters (as SQL's `LIKE` does, but with `%`, `_` and NUL taken literally).
    public static func contains(_ keyPath: KeyPath<Object, String?>, _ substring: String) -> FetchPredicate {
        FetchPredicate(.contains(property: Object.entity.propertyName(for: keyPath), substring: substring))
    }

    /// The property's value is one of `values`.
    public static func isIn<Value: StoreValueConvertible>(_ keyPath: KeyPath<Object, Value>, _ values: [Value]) -> FetchPredicate {
        FetchPredicate(.isIn(property: Object.entity.propertyName(for: keyPath), values: CandidateSet(values.map(\.storeValue))))
    }

    /// The relationship points at the object with this ID.
    public static func refers<Destination: ManagedObject>(
        _ keyPath: KeyPath<Object, Destination?>, to id: ObjectID
    ) -> FetchPredicate {
        FetchPredicate(.compare(property: Object.entity.propertyName(for: keyPath), .equal, .integer(id.primaryKey)))
    }
}

package enum ComparisonOperator: String, Sendable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

package indirect enum PredicateNode: Sendable {
    case constant(Bool)
    case compare(property: String, ComparisonOperator, StoreValue)
    case isIn(property: String, values: CandidateSet)
    case contains(property: String, substring: String)
    case and(PredicateNode, PredicateNode)
    case or(PredicateNode, PredicateNode)
    case not(PredicateNode)
    /// How many objects a to-many relationship reaches that match a predicate, compared with a
    /// number (`ANY` is a count above 0).
    case related(RelatedCondition)
    /// The row's primary key is one of these: what a `related` condition becomes once a context
    /// has counted the related objects as it sees them.
    case primaryKeyIn(Set<Int64>)
}

private func compare<Object, Value: StoreValueConvertible>(
    _ keyPath: KeyPath<Object, Value>, _ op: ComparisonOperator, _ value: Value
) -> FetchPredicate<Object> {
    FetchPredicate(.compare(property: Object.entity.propertyName(for: keyPath), op, value.storeValue))
}

/// The property equals `rhs`; `== nil` matches NULL. Text compares by its bytes, an integer and
/// a real by their numeric values.
public func == <Object, Value: StoreValueConvertible>(lhs: KeyPath<Object, Value>, rhs: Value) -> FetchPredicate<Object> {
    compare(lhs, .equal, rhs)
}
/// The property differs from `rhs`; `!= nil` matches any value but NULL, and a NULL property
/// never matches `!=` a value (as in SQL).
public func != <Object, Value: StoreValueConvertible>(lhs: KeyPath<Object, Value>, rhs: Value) -> FetchPredicate<Object> {
    compare(lhs, .notEqual, rhs)
}
/// The property is below `rhs`, in the store's order (``StoreValue`` `<`); NULL never matches.
public func < <Object, Value: StoreValueConvertible>(lhs: KeyPath<Object, Value>, rhs: Value) -> FetchPredicate<Object> {
    compare(lhs, .less, rhs)
}
/// The property is at most `rhs`, in the store's order; NULL never matches.
public func <= <Object, Value: StoreValueConvertible>(lhs: KeyPath<Object, Value>, rhs: Value) -> FetchPredicate<Object> {
    compare(lhs, .lessOrEqual, rhs)
}
/// The property is above `rhs`, in the store's order; NULL never matches.
public func > <Object, Value: StoreValueConvertible>(lhs: KeyPath<Object, Value>, rhs: Value) -> FetchPredicate<Object> {
    compare(lhs, .greater, rhs)
}
/// The property is at least `rhs`, in the store's order; NULL never matches.
public func >= <Object, Value: StoreValueConvertible>(lhs: KeyPath<Object, Value>, rhs: Value) -> FetchPredicate<Object> {
    compare(lhs, .greaterOrEqual, rhs)
}
/// Both predicates match.
public func && <Object>(lhs: FetchPredicate<Object>, rhs: FetchPredicate<Object>) -> FetchPredicate<Object> {
    FetchPredicate(.and(lhs.node, rhs.node))
}
/// Either predicate matches.
public func || <Object>(lhs: FetchPredicate<Object>, rhs: FetchPredicate<Object>) -> FetchPredicate<Object> {
    FetchPredicate(.or(lhs.node, rhs.node))
}
/// Matches the rows that `operand` does not match.
public prefix func ! <Object>(operand: FetchPredicate<Object>) -> FetchPredicate<Object> {
    FetchPredicate(.not(operand.node))
}

// MARK: - Evaluation

extension PredicateNode {
    /// The values a matching row can have for `property`, when the predicate allows only some
    /// (through `==`, `isIn`, `refers`, combined with `&&` and `||`); nil when it may allow any.
    /// NULL is left out of the answer's reach: a predicate that lets NULL match pins nothing.
    func pinnedValues(of property: String) -> [StoreValue]? {
        switch self {
        case .constant(false):
            return []
        case let .compare(name, .equal, value) where name == property && !value.isNull:
            return [value]
        case let .isIn(name, candidates) where name == property && !candidates.values.contains(where: \.isNull):
            return candidates.values
        case let .and(lhs, rhs):
            switch (lhs.pinnedValues(of: property), rhs.pinnedValues(of: property)) {
            case let (left?, right?): return left.count <= right.count ? left : right
            case let (left?, nil): return left
            case let (nil, right): return right
            }
        case let .or(lhs, rhs):
            guard let left = lhs.pinnedValues(of: property), let right = rhs.pinnedValues(of: property) else { return nil }
            return left + right
        default:
            return nil
        }
    }

    /// Evaluates the predicate on a row in memory (for unsaved changes). A `related` condition must
    /// have been resolved first (see `ManagedObjectContext.resolvingRelationships`).
    func evaluate(_ values: [StoreValue], primaryKey: Int64, entity: EntityDescription) -> Bool {
        switch self {
        case let .constant(value):
            return value
        case let .compare(property, op, value):
            let actual = values[entity.propertyIndex(property)]
            if value.isNull {
                switch op {
                case .equal: return actual.isNull
                case .notEqual: return !actual.isNull
                default: return false
                }
            }
            if actual.isNull { return false }
            switch op {
            case .equal: return actual.sqlEquals(value)
            case .notEqual: return !actual.sqlEquals(value)
            case .less: return actual < value
            case .lessOrEqual: return actual < value || actual.sqlEquals(value)
            case .greater: return value < actual
            case .greaterOrEqual: return value < actual || actual.sqlEquals(value)
            }
        case let .isIn(property, candidates):
            return candidates.contains(values[entity.propertyIndex(property)])
        case let .contains(property, substring):
            guard case let .text(text) = values[entity.propertyIndex(property)] else { return false }
            // Bytes, as SQL's `instr` finds them: `String.contains` would compare characters,
            // and not find the `e` of a decomposed `é`.
            return substring.isEmpty || asciiLowercased(text).firstRange(of: asciiLowercased(substring)) != nil
        case let .and(lhs, rhs):
            return lhs.evaluate(values, primaryKey: primaryKey, entity: entity)
                && rhs.evaluate(values, primaryKey: primaryKey, entity: entity)
        case let .or(lhs, rhs):
            return lhs.evaluate(values, primaryKey: primaryKey, entity: entity)
                || rhs.evaluate(values, primaryKey: primaryKey, entity: entity)
        case let .not(operand):
            return !operand.evaluate(values, primaryKey: primaryKey, entity: entity)
        case .related:
            preconditionFailure("a relationship condition is counted by a context before rows are tested")
        case let .primaryKeyIn(keys):
            return keys.contains(primaryKey)
        }
    }
}

/// The values of an `IN` predicate, hashed once so that testing a row costs one look-up
/// (unsaved-change overlays test every pending row against it).
package struct CandidateSet: Sendable {
    let values: [StoreValue]
    private let keys: Set<StoreValue>
    private let containsNull: Bool

    init(_ values: [StoreValue]) {
        self.values = values
        self.keys = Set(values.lazy.filter { !$0.isNull }.map(\.comparisonKey))
        self.containsNull = values.contains(where: \.isNull)
    }

    /// Membership as SQL's `IN` decides it (integers and reals compare numerically), except that
    /// NULL matches a NULL candidate, as `evaluate` has always treated it.
    func contains(_ value: StoreValue) -> Bool {
        value.isNull ? containsNull : keys.contains(value.comparisonKey)
    }
}

extension StoreValue {
    /// A form in which values that SQL compares equal are equal: integers that a Double holds
    /// exactly become reals.
    var comparisonKey: StoreValue {
        if case let .integer(value) = self, let exact = Double(exactly: value) { return .real(exact) }
        return self
    }

    /// Equality as SQL compares: integers and reals numerically.
    func sqlEquals(_ other: StoreValue) -> Bool {
        switch (self, other) {
        case let (.integer(a), .real(b)): return Double(a) == b
        case let (.real(a), .integer(b)): return a == Double(b)
        default: return self == other
        }
    }
}

package func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// The UTF-8 bytes with ASCII letters lower-cased, as SQLite's `lower` does without ICU.
private func asciiLowercased(_ text: String) -> [UInt8] {
    text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
}
