public import Foundation

/// The identity of a row: store, entity and primary key. Unlike a ``ManagedObject``, an ID is
/// `Sendable`: pass IDs between contexts and threads, and look the object up in the other context
/// with ``ManagedObjectContext/object(with:)`` or ``ManagedObjectContext/existingObject(with:)``.
///
/// IDs are permanent from the moment an object is inserted (the store hands out primary keys in
/// blocks), so there are no temporary IDs to convert, ever.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The store the row is in: the UUID the store drew when it was created
    /// (``SQLiteStore/identifier``).
    public let storeIdentifier: UUID
    /// The entity's name (``EntityDescription/name``).
    public let entityName: String
    /// The row's primary key, unique across every entity of the store.
    public let primaryKey: Int64

    /// Makes the ID of a row from its parts; contexts hand these out, tools rebuild them.
    public init(storeIdentifier: UUID, entityName: String, primaryKey: Int64) {
        self.storeIdentifier = storeIdentifier
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    /// Always false: Lineup has no temporary IDs.
    public var isTemporaryID: Bool { false }

    /// `x-lineup://<store-uuid>/<Entity>/p<pk>`
    public var uriRepresentation: URL {
        URL(string: "x-lineup://\(storeIdentifier.uuidString)/\(entityName)/p\(primaryKey)")!
    }

    /// Parses the URI form; nil when the URI is not a Lineup object URI.
    public init?(uriRepresentation uri: URL) {
        guard uri.scheme == "x-lineup",
            let host = uri.host, let store = UUID(uuidString: host)
        else { return nil }
        let components = uri.path.split(separator: "/")
        guard components.count == 2, components[1].first == "p",
            let primaryKey = Int64(components[1].dropFirst())
        else { return nil }
        self.init(storeIdentifier: store, entityName: String(components[0]), primaryKey: primaryKey)
    }

    /// The URI form, `x-lineup://<store-uuid>/<Entity>/p<pk>`.
    public var description: String { uriRepresentation.absoluteString }

    // Primary keys are unique across all entities of a store, so the key alone is a good hash;
    // hashing the entity name too would cost a string hash on every dictionary access.
    /// Hashes the primary key only, which tells IDs of one store apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
    }

    // The primary key first: it alone tells two IDs of one store apart, and dictionaries compare
    // keys at every probe.
    /// Whether both name the same row: same primary key, entity and store.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.primaryKey == rhs.primaryKey && lhs.entityName == rhs.entityName
            && lhs.storeIdentifier == rhs.storeIdentifier
    }

    /// Decodes the URI form (``uriRepresentation``); throws `DecodingError.dataCorrupted` for any
    /// other string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let uri = try container.decode(URL.self)
        guard let id = ObjectID(uriRepresentation: uri) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a Lineup object URI: \(uri)")
        }
        self = id
    }

    /// Encodes the URI form (``uriRepresentation``), a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uriRepresentation)
    }
}
