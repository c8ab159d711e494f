/// One persistent property of an entity: an attribute, or a to-one relationship stored as the
/// destination's primary key. Each property is one column of the entity's table.
public struct PropertyDescription: Sendable, Hashable, Codable {
    public let name: String
    public let type: AttributeType
    public let isOptional: Bool
    /// For a to-one relationship (`type == .reference`), the destination entity's name.
    public let destinationEntityName: String?

    public init(name: String, type: AttributeType, isOptional: Bool, destinationEntityName: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.destinationEntityName = destinationEntityName
    }
}
