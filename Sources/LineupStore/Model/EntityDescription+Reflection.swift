import Foundation
import LineupLocking

extension ManagedObject {
    /// The entity of this class, derived once from its property declarations.
    public static var entity: EntityDescription {
        EntityCache.shared.entity(for: self)
    }
}

extension EntityDescription {
    /// The index of a property that the class itself declares; a missing one is a programming
    /// error. A linear scan beats hashing for the handful of properties an entity has. The
    /// property wrappers pass the entity's own name strings, found by their bits alone (see
    /// ``StringBits``); any other string is compared: names of another length are passed over on
    /// their length alone (which a short string keeps inline), and equal short names compare as
    /// two machine words.
    @inlinable @inline(__always)
    func propertyIndex(_ name: String) -> Int {
        let bits = StringBits(name)
        for index in propertyNameBits.indices where propertyNameBits[index] == bits {
            return index
        }
        let length = name.utf8.count
        for index in properties.indices
        where properties[index].name.utf8.count == length && properties[index].name == name {
            return index
        }
        preconditionFailure("\(self.name) has no property \(name)")
    }

    /// The name of the property that a key path of the entity's class reads, found by reading it
    /// on a prototype object that records which property wrapper answered.
    func propertyName<Object: ManagedObject, Value>(for keyPath: KeyPath<Object, Value>) -> String {
        if let cached = keyPathNames.withLock({ $0[KeyPathKey(keyPath)] }) {
            return cached
        }
        let prototype = Object.makePrototype(entity: self)
        _ = prototype[keyPath: keyPath]
        guard let name = prototype.probedPropertyName else {
            preconditionFailure("\(keyPath) is not an @Attribute or @Relationship of \(self.name)")
        }
        keyPathNames.withLock { $0[KeyPathKey(keyPath)] = name }
        return name
    }
}

extension ManagedObject {
    static let prototypeStoreIdentifier = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!

    static func makePrototype(entity: EntityDescription) -> Self {
        let id = ObjectID(storeIdentifier: ManagedObject.prototypeStoreIdentifier, entityName: entity.name, primaryKey: 0)
        return Self(
            ObjectInitialization(
                objectID: id, entity: entity, context: nil, values: [], stamp: 0, state: .clean, isPrototype: true))
    }
}

/// A key path as a dictionary key.
struct KeyPathKey: Hashable, @unchecked Sendable {
    // @unchecked Sendable: key paths are immutable values; only their identity is used here.
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// Entity descriptions by class, derived on first use and kept for the life of the process:
/// objects and row changes refer to their entity without retaining it (`unowned(unsafe)`), which
/// is only sound because no entity description they can reach is ever released.
final class EntityCache: Sendable {
    static let shared = EntityCache()
    private let entities = Locked<[ObjectIdentifier: EntityDescription]>([:])

    func entity(for type: ManagedObject.Type) -> EntityDescription {
        if let entity = entities.withLock({ $0[ObjectIdentifier(type)] }) {
            return entity
        }
        // Derived outside the lock: a relationship's destination derives its own entity.
        let entity = Self.derive(type)
        return entities.withLock { cache in
            if let existing = cache[ObjectIdentifier(type)] { return existing }
            cache[ObjectIdentifier(type)] = entity
            return entity
        }
    }

    private static func derive(_ type: ManagedObject.Type) -> EntityDescription {
        let placeholder = EntityDescription(
            name: type.entityName, properties: [], defaultValues: [], uniquenessConstraints: [], indexes: [],
            objectType: type)
        let prototype = type.makePrototype(entity: placeholder)
        var properties: [PropertyDescription] = []
        var defaults: [StoreValue] = []
        var relationships: [RelationshipDescription] = []
        // The prototype refers to the placeholder without retaining it.
        defer { withExtendedLifetime(placeholder) {} }
        for child in Mirror(reflecting: prototype).children {
            let property = child.value as? any PersistentPropertyDeclaration
            let relationship = child.value as? any RelationshipDeclaration
            guard property != nil || relationship != nil else {
                preconditionFailure(
                    "\(type).\(child.label ?? "?"): a ManagedObject subclass may only store @Attribute, @Relationship and @ToMany properties"
                )
            }
            if let property {
                properties.append(property.propertyDescription)
                defaults.append(property.defaultStoreValue)
            }
            if let relationship { relationships.append(relationship.relationshipDescription) }
        }
        return EntityDescription(
            name: type.entityName, properties: properties, defaultValues: defaults,
            uniquenessConstraints: type.uniquenessConstraints, indexes: type.indexes, relationships: relationships,
            objectType: type)
    }
}
