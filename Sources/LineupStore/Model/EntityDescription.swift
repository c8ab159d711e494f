import LineupLocking

/// The description of one entity: its name, its properties (in declaration order, which is also
/// the order of the values in every row), its uniqueness constraints, and the class of its objects.
///
/// Entity descriptions are derived from the `ManagedObject` subclass declarations (see
/// ``ManagedObject``), once per class, and are immutable afterwards.
public final class EntityDescription: Sendable, CustomStringConvertible {
    /// The entity's name, also its table's: ``ManagedObject/entityName`` of its class (the class
    /// name unless overridden).
    public let name: String
    /// The persistent properties, attributes and to-one relationships, in declaration order: the
    /// order of the values in every row, and of the table's columns.
    public let properties: [PropertyDescription]
    /// Groups of property names whose values must be unique together, e.g. `[["station", "time"]]`.
    public let uniquenessConstraints: [[String]]
    /// Extra indexes to create, each a list of property names.
    public let indexes: [[String]]
    /// The relationships, to-one (each also a property) and to-many (no property: derived from
    /// the inverse), with their inverses and delete rules.
    public let relationships: [RelationshipDescription]
    /// Whether `uniquenessConstraints` has any: asked for every row a save moves.
    let hasUniquenessConstraints: Bool
    /// The positions in a row of each uniqueness constraint's properties.
    let uniqueKeyPositions: [[Int]]
    /// The values of a newly inserted object.
    let defaultValues: [StoreValue]
    let objectType: ManagedObject.Type
    private let propertyIndexes: [String: Int]
    /// Each property's name as bits, in property order: `propertyIndex(_:)`'s fast path.
    @usableFromInline let propertyNameBits: [StringBits]
    /// Property names of key paths already resolved (see `propertyName(for:)`).
    let keyPathNames = Locked<[KeyPathKey: String]>([:])

    init(
        name: String,
        properties: [PropertyDescription],
        defaultValues: [StoreValue],
        uniquenessConstraints: [[String]],
        indexes: [[String]],
        relationships: [RelationshipDescription] = [],
        objectType: ManagedObject.Type
    ) {
        precondition(properties.count <= PropertyMask.capacity, "\(name): at most \(PropertyMask.capacity) properties")
        self.name = name
        self.properties = properties
        self.defaultValues = defaultValues
        self.uniquenessConstraints = uniquenessConstraints
        self.hasUniquenessConstraints = !uniquenessConstraints.isEmpty
        self.indexes = indexes
        self.relationships = relationships
        self.objectType = objectType
        var indexes: [String: Int] = [:]
        for (index, property) in properties.enumerated() {
            precondition(indexes[property.name] == nil, "\(name): property \(property.name) declared twice")
            indexes[property.name] = index
        }
        self.propertyIndexes = indexes
        self.propertyNameBits = properties.map { StringBits($0.name) }
        for constraint in uniquenessConstraints + self.indexes {
            for property in constraint {
                precondition(indexes[property] != nil, "\(name): unknown property \(property) in a constraint or index")
            }
        }
        self.uniqueKeyPositions = uniquenessConstraints.map { $0.map { indexes[$0]! } }
    }

    /// The relationship of that name, if the entity has one.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }

    /// The index of a property in this entity's rows, or nil if it has no such property.
    public func index(ofProperty name: String) -> Int? {
        propertyIndexes[name]
    }

    /// The entity's name.
    public var description: String { name }

    /// The part of the description that the store's schema depends on.
    package var schema: EntitySchema {
        EntitySchema(name: name, properties: properties, uniquenessConstraints: uniquenessConstraints, indexes: indexes)
    }
}

/// A string's two machine words, compared as integers.
///
/// Every property wrapper asks its entity for its index by name, on every read and write
/// (`Attribute`), and it asks with the very string the entity was derived from: the literal of
/// `@Attribute("pressure")`. Two copies of one string value have the same bits (the same inline
/// bytes for a short name, the same pointer for a long one), so comparing two words finds the
/// property without measuring or comparing strings. Equal bits always mean equal strings; a name
/// built at run time may have other bits and still be equal, which `==` settles after.
@usableFromInline
struct StringBits: Equatable, Sendable {
    @usableFromInline let first: UInt64
    @usableFromInline let second: UInt64

    @inlinable
    init(_ string: String) {
        // A String is two words on the 64-bit platforms Lineup runs on; `unsafeBitCast` checks
        // the sizes and traps on any other.
        (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
    }
}

/// The persistent shape of an entity, as recorded in a store's metadata.
package struct EntitySchema: Sendable, Hashable, Codable {
    package let name: String
    package let properties: [PropertyDescription]
    package let uniquenessConstraints: [[String]]
    package let indexes: [[String]]
}
