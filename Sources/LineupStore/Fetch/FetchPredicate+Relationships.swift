extension FetchPredicate {
    /// At least one object that the to-many relationship reaches matches `predicate` (Core Data's
    /// `ANY`): `.any(\.observations, where: \.waveHeight > 3)`.
    public static func any<Destination: ManagedObject>(
        _ keyPath: KeyPath<Object, [Destination]>, where predicate: FetchPredicate<Destination> = .all
    ) -> FetchPredicate {
        count(keyPath, where: predicate) > 0
    }

    /// The number of objects that the to-many relationship reaches (and that match `predicate`),
    /// to compare with a number (Core Data's `@count`):
    /// `FetchPredicate<BuoyStation>.count(\.observations) >= 5` (a comparison's left side needs
    /// its type spelled out).
    public static func count<Destination: ManagedObject>(
        _ keyPath: KeyPath<Object, [Destination]>, where predicate: FetchPredicate<Destination> = .all
    ) -> RelationshipCount<Object> {
        let entity = Object.entity
        let name = entity.propertyName(for: keyPath)
        guard let relationship = entity.relationship(named: name), relationship.kind == .toMany,
            let inverse = relationship.inverseName
        else {
            preconditionFailure("\(entity.name).\(name) is not a to-many relationship")
        }
        let join =
            relationship.isManyToMany(destination: Destination.entity)
            ? ManyToManyJoin(source: entity.name, relationship: relationship) : nil
        return RelationshipCount(
            source: entity.name, destination: relationship.destinationEntityName, inverse: inverse, predicate: predicate.node,
            join: join)
    }
}

/// How many objects a to-many relationship reaches, in a predicate: compare it with a number.
public struct RelationshipCount<Object: ManagedObject>: Sendable {
    let source: String
    let destination: String
    let inverse: String
    let predicate: PredicateNode
    let join: ManyToManyJoin?

    func compared(_ comparison: ComparisonOperator, _ count: Int) -> FetchPredicate<Object> {
        FetchPredicate(
            .related(
                RelatedCondition(
                    source: source, destination: destination, inverse: inverse, predicate: predicate,
                    comparison: comparison, count: count, join: join)))
    }
}

/// The relationship reaches exactly `rhs` matching objects (`== 0`: none).
public func == <Object>(lhs: RelationshipCount<Object>, rhs: Int) -> FetchPredicate<Object> { lhs.compared(.equal, rhs) }
/// The relationship reaches other than `rhs` matching objects.
public func != <Object>(lhs: RelationshipCount<Object>, rhs: Int) -> FetchPredicate<Object> { lhs.compared(.notEqual, rhs) }
/// The relationship reaches fewer than `rhs` matching objects.
public func < <Object>(lhs: RelationshipCount<Object>, rhs: Int) -> FetchPredicate<Object> { lhs.compared(.less, rhs) }
/// The relationship reaches at most `rhs` matching objects.
public func <= <Object>(lhs: RelationshipCount<Object>, rhs: Int) -> FetchPredicate<Object> { lhs.compared(.lessOrEqual, rhs) }
/// The relationship reaches more than `rhs` matching objects (`> 0` is
/// ``FetchPredicate/any(_:where:)``).
public func > <Object>(lhs: RelationshipCount<Object>, rhs: Int) -> FetchPredicate<Object> { lhs.compared(.greater, rhs) }
/// The relationship reaches at least `rhs` matching objects.
public func >= <Object>(lhs: RelationshipCount<Object>, rhs: Int) -> FetchPredicate<Object> { lhs.compared(.greaterOrEqual, rhs) }
