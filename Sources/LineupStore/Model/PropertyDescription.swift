/// One persistent property of an entity: an attribute, or a to-one relationship stored as the
/// destination's primary key. Each property is one column of the entity's table.
public struct PropertyDescription: Sendable, Hashable, Codable {
    /// The property's name, also its column's, as given to ``Attribute`` or ``Relationship``.
    public let name: String
    /// The column's type; `.reference` for a to-one relationship.
    public let type: AttributeType
    /// Whether the column may hold NULL: an `Optional` attribute, or any to-one relationship.
    public let isOptional: Bool
    /// For a to-one relationship (`type == .reference`), the destination entity's name.
    public let destinationEntityName: String?

    /// Makes a description; the model derives its own from the ``Attribute`` and ``Relationship``
    /// declarations of its classes.
    public init(name: String, type: AttributeType, isOptional: Bool, destinationEntityName: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.destinationEntityName = destinationEntityName
    }
}
