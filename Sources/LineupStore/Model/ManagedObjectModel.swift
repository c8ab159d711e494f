/// The set of entities a store holds, built from `ManagedObject` subclasses:
///
/// ```swift
/// let model = ManagedObjectModel(JournalEntry.self, BuoyStation.self, BuoyObservation.self)
/// ```
public final class ManagedObjectModel: Sendable {
    /// The entities, in the order the types were given, then the join entities of the many-to-many
    /// relationships (`Z_Entry_tags`: see ``ToMany``), whose tables hold the pairs.
    public let entities: [EntityDescription]
    /// Whether any relationship is a many-to-many: saves that delete objects look for join rows only then.
    let hasManyToMany: Bool
    private let entitiesByName: [String: EntityDescription]
    private let entitiesByType: [ObjectIdentifier: EntityDescription]

    /// Makes the model of these entity classes; see ``init(types:)``.
    public convenience init(_ types: ManagedObject.Type...) {
        self.init(types: types)
    }

    /// Makes the model of these entity classes. A name given twice, a relationship to an entity not
    /// in the model, or inverses that do not name each other is a precondition failure.
    public init(types: [ManagedObject.Type]) {
        let entities = types.map { $0.entity }
        var byName: [String: EntityDescription] = [:]
        var byType: [ObjectIdentifier: EntityDescription] = [:]
        for entity in entities {
            precondition(byName[entity.name] == nil, "entity \(entity.name) appears twice in the model")
            byName[entity.name] = entity
            byType[ObjectIdentifier(entity.objectType)] = entity
        }
        for entity in entities {
            for property in entity.properties {
                if let destination = property.destinationEntityName {
                    precondition(
                        byName[destination] != nil,
                        "\(entity.name).\(property.name) refers to \(destination), which is not in the model"
                    )
                }
            }
        }
        var joins: [EntityDescription] = []
        for entity in entities {
            for relationship in entity.relationships {
                Self.checkInverse(of: relationship, in: entity, byName)
                if let destination = byName[relationship.destinationEntityName],
                    relationship.isManyToMany(destination: destination)
                {
                    let join = ManyToManyJoin(source: entity.name, relationship: relationship)
                        .entity(source: entity.name, destination: destination.name)
                    guard byName[join.name] == nil else { continue }
                    byName[join.name] = join
                    joins.append(join)
                }
            }
        }
        self.entities = entities + joins
        self.hasManyToMany = !joins.isEmpty
        self.entitiesByName = byName
        self.entitiesByType = byType
    }

    /// A relationship and its inverse must name each other; a to-many needs an inverse.
    private static func checkInverse(
        of relationship: RelationshipDescription, in entity: EntityDescription, _ entities: [String: EntityDescription]
    ) {
        let path = "\(entity.name).\(relationship.name)"
        guard let destination = entities[relationship.destinationEntityName] else {
            preconditionFailure("\(path) refers to \(relationship.destinationEntityName), which is not in the model")
        }
        guard let inverseName = relationship.inverseName else {
            precondition(relationship.kind == .toOne, "\(path): a to-many relationship needs an inverse")
            return
        }
        guard let inverse = destination.relationship(named: inverseName) else {
            preconditionFailure("\(path): its inverse \(destination.name).\(inverseName) is not a relationship")
        }
        // A join row's two columns are named after the two sides, and a fetch's predicate on the
        // relationship tells the two tables apart by name.
        precondition(
            relationship.kind == .toOne || inverse.kind == .toOne
                || (inverse.name != relationship.name && destination.name != entity.name),
            "\(path): the two sides of a many-to-many need two names and two entities")
        precondition(
            inverse.destinationEntityName == entity.name && (inverse.inverseName ?? relationship.name) == relationship.name,
            "\(path) and \(destination.name).\(inverseName) must name each other as inverses")
    }

    /// The entity of that name; nil when the model has none.
    public func entity(named name: String) -> EntityDescription? {
        entitiesByName[name]
    }

    func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entitiesByType[ObjectIdentifier(type)]
    }

    package var schema: [EntitySchema] { entities.map(\.schema) }
}
