/// The set of entities a store holds, built from `ManagedObject` subclasses:
///
/// ```swift
/// let model = ManagedObjectModel(JournalEntry.self, BuoyStation.self, BuoyObservation.self)
/// ```
public final class ManagedObjectModel: Sendable {
    public let entities: [EntityDescription]
    private let entitiesByName: [String: EntityDescription]
    private let entitiesByType: [ObjectIdentifier: EntityDescription]

    public convenience init(_ types: ManagedObject.Type...) {
        self.init(types: types)
    }

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
        self.entities = entities
        self.entitiesByName = byName
        self.entitiesByType = byType
    }

    public func entity(named name: String) -> EntityDescription? {
        entitiesByName[name]
    }

    func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entitiesByType[ObjectIdentifier(type)]
    }

    var schema: [EntitySchema] { entities.map(\.schema) }
}
