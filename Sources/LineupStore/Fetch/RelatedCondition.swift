/// A condition on the objects that a to-many relationship reaches: how many of them match
/// `predicate`, compared with `count`. Built by ``FetchPredicate/any(_:where:)`` and
/// ``FetchPredicate/count(_:where:)``.
package struct RelatedCondition: Sendable {
    /// The entity whose rows are tested.
    let source: String
    /// The entity the relationship reaches, and its to-one inverse (the column that holds the
    /// source's key).
    let destination: String
    let inverse: String
    let predicate: PredicateNode
    let comparison: ComparisonOperator
    let count: Int
    /// For a many-to-many, the join rows that pair the source with the destination (`inverse`
    /// is then the destination's to-many, which has no column).
    var join: ManyToManyJoin? = nil

    /// Whether a source object reaching `related` matching objects passes.
    func holds(for related: Int) -> Bool {
        switch comparison {
        case .equal: related == count
        case .notEqual: related != count
        case .less: related < count
        case .lessOrEqual: related <= count
        case .greater: related > count
        case .greaterOrEqual: related >= count
        }
    }
}

extension PredicateNode {
    /// Whether a `related` condition appears anywhere in the predicate.
    var containsRelated: Bool {
        switch self {
        case .related: true
        case let .and(lhs, rhs), let .or(lhs, rhs): lhs.containsRelated || rhs.containsRelated
        case let .not(operand): operand.containsRelated
        default: false
        }
    }

    /// The predicate with each `related` condition replaced by `resolve`'s answer.
    func replacingRelated(_ resolve: (RelatedCondition) throws -> PredicateNode) rethrows -> PredicateNode {
        switch self {
        case let .related(condition): try resolve(condition)
        case let .and(lhs, rhs): .and(try lhs.replacingRelated(resolve), try rhs.replacingRelated(resolve))
        case let .or(lhs, rhs): .or(try lhs.replacingRelated(resolve), try rhs.replacingRelated(resolve))
        case let .not(operand): .not(try operand.replacingRelated(resolve))
        default: self
        }
    }
}
