import LineupLocking

/// Where a many-to-many relationship is stored: a join entity of its own, one row per pair of
/// related objects, as Core Data keeps one in SQLite (`Z_1TAGS`). Its table is made and migrated
/// with the model's entities, and its rows go through contexts, saves, merges and flushes as any
/// other entity's, so both sides (each read from the same rows) agree wherever the rows are seen.
///
/// Seen from one side, `Entry.tags` ↔ `Tag.entries`: the join entity `Z_Entry_tags` has the
/// column `entries`, which holds the entry's key, and `tags`, the tag's: a relationship's column
/// holds the keys of its destination, so each side reads its inverse's column to find its own
/// rows, as a one-to-many reads its to-one inverse.
struct ManyToManyJoin: Sendable, Hashable {
    /// The join entity's name, also its table's.
    let entityName: String
    /// The column that holds the key of the side the relationship is read from.
    let sourceColumn: String
    /// The column that holds the key of the object it reaches.
    let destinationColumn: String

    /// The join of `relationship`, a to-many of `source` whose inverse is a to-many too. Both
    /// sides name the same join entity: it is named after the side that sorts first.
    init(source: String, relationship: RelationshipDescription) {
        let inverse = relationship.inverseName ?? relationship.name
        let here = "\(source)_\(relationship.name)"
        let there = "\(relationship.destinationEntityName)_\(inverse)"
        self.entityName = "Z_" + min(here, there)
        self.sourceColumn = inverse
        self.destinationColumn = relationship.name
    }

    /// The join entity of a many-to-many between `source` and `destination`, made once per name
    /// and kept for the life of the process, as `EntityCache` keeps the others (objects refer to
    /// their entity without retaining it). Its columns are in the order of the names of the
    /// relationships, so that both sides make the same entity.
    func entity(source: String, destination: String) -> EntityDescription {
        Self.entities.withLock { entities in
            if let existing = entities[entityName] { return existing }
            let ends = [(sourceColumn, source), (destinationColumn, destination)].sorted { $0.0 < $1.0 }
            let entity = EntityDescription(
                name: entityName,
                properties: ends.map {
                    PropertyDescription(name: $0.0, type: .reference, isOptional: true, destinationEntityName: $0.1)
                },
                defaultValues: [.null, .null], uniquenessConstraints: [], indexes: ends.map { [$0.0] },
                objectType: JoinRow.self)
            entities[entityName] = entity
            return entity
        }
    }

    private static let entities = Locked<[String: EntityDescription]>([:])
}

/// A row of a join entity (see ``ManyToManyJoin``): the objects Lineup makes to insert and
/// delete pairs, never handed to user code.
final class JoinRow: ManagedObject {}

extension RelationshipDescription {
    /// Whether this is one side of a many-to-many: a to-many whose inverse in `destination` is a
    /// to-many too.
    func isManyToMany(destination: EntityDescription) -> Bool {
        guard kind == .toMany, let inverseName else { return false }
        return destination.relationship(named: inverseName)?.kind == .toMany
    }
}

extension EntityDescription {
    /// Whether this is the join entity of a many-to-many, which the model made (see
    /// ``ManyToManyJoin``), rather than an entity of a class of the application's.
    package var isJoinEntity: Bool { objectType == JoinRow.self }
}
