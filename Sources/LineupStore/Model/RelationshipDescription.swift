/// A relationship of an entity, with its inverse and its delete rule.
///
/// A to-one relationship is a column holding the destination's primary key. A to-many
/// relationship is its to-one inverse seen from the other side: it has no column and no copy,
/// it is derived in each context from the inverse's values as that context sees them (the objects
/// it holds loaded as it loaded or changed them, other rows as its parent sees them: see
/// <doc:Relationships>), so both sides agree in every context, through saves, rollback and
/// merges, by construction. Core Data stores a one-to-many the same
/// way in SQLite.
///
/// Two to-many relationships that are each other's inverse are a many-to-many: each pair of
/// related objects is a row of a join entity that the model adds (see ``ToMany``), and both
/// sides are derived from those rows.
public struct RelationshipDescription: Sendable, Hashable {
    /// Which side of a relationship a relationship is: to-one, or to-many (of a one-to-many or a
    /// many-to-many).
    public enum Kind: Sendable, Hashable {
        case toOne
        case toMany
    }

    /// The relationship's name, as given to ``Relationship`` or ``ToMany``.
    public let name: String
    /// To-one (a column) or to-many (derived from its to-one inverse, or from the join rows of a
    /// many-to-many).
    public let kind: Kind
    /// The name of the entity it leads to.
    public let destinationEntityName: String
    /// The relationship of the destination that leads back; required for a to-many.
    public let inverseName: String?
    /// What deleting an object does to the objects this relationship reaches.
    public let deleteRule: DeleteRule
}
