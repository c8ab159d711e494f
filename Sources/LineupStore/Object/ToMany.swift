/// Declares a to-many relationship of a ``ManagedObject`` subclass: the inverse of a to-one
/// ``Relationship`` of the destination, with a delete rule.
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
@propertyWrapper
public struct ToMany<Destination: ManagedObject> {
    let name: String
    let inverse: String
    let deleteRule: DeleteRule

    /// - Parameters:
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
            return object.relatedObjects(through: relationship.inverse, of: Destination.self)
        }
        set {
            object.setRelatedObjects(newValue, through: object[keyPath: storageKeyPath].inverse)
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
