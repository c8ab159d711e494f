/// Declares a to-many relationship of a ``ManagedObject`` subclass: the inverse of a to-one
/// ``Relationship`` of the destination, or of a to-many of the destination (many-to-many), with
/// a delete rule.
///
/// ```swift
/// final class BuoyStation: ManagedObject {
///     @ToMany("observations", inverse: "station", deleteRule: .cascade)
///     var observations: [BuoyObservation]
/// }
/// station.observations                  // in primary-key order, as this context sees them
/// station.observations.append(reading)  // sets reading.station = station
/// station.observations.removeAll { $0.waveHeight == nil }   // sets their station to nil
/// ```
///
/// It has no column and no copy: reading it fetches the destination's objects whose inverse
/// refers to this object, unsaved changes of the context and its ancestors included, so both
/// sides agree in every context, through saves, rollback and merges; setting it sets the
/// inverse of the objects that join or leave it. Fetches can test it with
/// ``FetchPredicate/any(_:where:)`` and ``FetchPredicate/count(_:where:)``.
///
/// Two to-many relationships that name each other as inverses are a many-to-many, as Core
/// Data's `NSRelationshipDescription` with `isToMany` on both sides:
///
/// ```swift
/// final class Entry: ManagedObject {
///     @ToMany("tags", inverse: "entries") var tags: [Tag]
/// }
/// final class Tag: ManagedObject {
///     @ToMany("entries", inverse: "tags") var entries: [Entry]
/// }
/// entry.tags.append(surf)   // surf.entries now lists entry, in every context that sees the pair
/// ```
///
/// Its pairs are rows of a join entity the model adds (`Z_Entry_tags`, one table on either
/// store), read and written through the contexts like any other rows, so both sides (read from
/// the same rows) agree in every context, through saves, rollback and merges. Deleting an object
/// deletes its pairs unless its rule is `.noAction`, which leaves them dangling; `.cascade` and
/// `.deny` act on the objects reached as for a one-to-many; a ``BatchDeleteRequest`` deletes the
/// pairs of the rows it deletes. The two sides need two names and two entities.
@propertyWrapper
public struct ToMany<Destination: ManagedObject> {
    let name: String
    let inverse: String
    let deleteRule: DeleteRule

    /// - Parameters:
    ///   - name: the relationship's name in the entity, which the inverse names.
    ///   - inverse: the destination's to-one ``Relationship`` that leads back.
    ///   - deleteRule: what deleting this object does to the objects it reaches: `.nullify`
    ///     (Core Data's default) sets their inverse to nil, `.cascade` deletes them, `.deny`
    ///     fails the save while there are any, `.noAction` leaves their keys dangling.
    public init(_ name: String, inverse: String, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// Unavailable: the property is read and written through the enclosing ``ManagedObject`` (see
    /// the static subscript).
    @available(*, unavailable, message: "@ToMany is only available on ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        get { fatalError() }
        set { fatalError() }
    }

    /// Reads the destination objects whose inverse is `object` (in primary-key order, unsaved
    /// changes included) or sets the inverse of those that join or leave; called by the compiler
    /// for the wrapped property, not by user code.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> [Destination] {
        get {
            let relationship = object[keyPath: storageKeyPath]
            if object.isPrototype {
                object.probedPropertyName = relationship.name
                return []
            }
            if let manyToMany = object.manyToManyRelationship(named: relationship.name) {
                return object.manyToManyObjects(manyToMany, of: Destination.self)
            }
            return object.relatedObjects(through: relationship.inverse, of: Destination.self)
        }
        set {
            let relationship = object[keyPath: storageKeyPath]
            if let manyToMany = object.manyToManyRelationship(named: relationship.name) {
                object.setManyToManyObjects(newValue, manyToMany)
            } else {
                object.setRelatedObjects(newValue, through: relationship.inverse)
            }
        }
    }
}

@available(*, unavailable)
extension ToMany: Sendable {}

extension ToMany: RelationshipDeclaration {
    var relationshipDescription: RelationshipDescription {
        RelationshipDescription(
            name: name, kind: .toMany, destinationEntityName: Destination.entityName, inverseName: inverse,
            deleteRule: deleteRule)
    }
}
