/// The set of entities a store holds, built from `ManagedObject` subclasses:
///
/// ```swift
/// let model = ManagedObjectModel(JournalEntry.self, BuoyStation.self, BuoyObservation.self)
/// ```
public final class ManagedObjectModel: Sendable {
    /// The entities, in the order the types were given.
    public let entities: [EntityDescription]
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
        for entity in entities {
            for relationship in entity.relationships {
                Self.checkInverse(of: relationship, in: entity, byName)
            }
        }
        self.entities = entities
        self.entitiesByName = byName
        self.entitiesByType = byType
    }

    /// A relationship and its inverse must name each other; a to-many needs a to-one inverse.
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
        precondition(
            relationship.kind == .toOne || inverse.kind == .toOne,
            "\(path): many-to-many relationships are not supported (\(destination.name).\(inverseName) is to-many too)")
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
