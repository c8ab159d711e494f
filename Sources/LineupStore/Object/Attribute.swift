/// Declares a persistent attribute of a ``ManagedObject`` subclass with a typed accessor:
///
/// ```swift
/// @Attribute("height") var height: String?       // optional: NULL when unset
/// @Attribute("rating") var rating: Int = 3       // non-optional: needs a default
/// ```
///
/// Reading or writing the property reads or writes the object's value in its context (firing
/// the fault if needed) and tracks the change.
@propertyWrapper
public struct Attribute<Value: StoreValueConvertible> {
    @usableFromInline let name: String
    @usableFromInline let defaultValue: Value

    /// Declares the attribute `name` (its column's name), with `wrappedValue` as its default: the
    /// value of a new object, and of a column value the type cannot hold.
    public init(wrappedValue: Value, _ name: String) {
        self.name = name
        self.defaultValue = wrappedValue
    }

    /// Unavailable: the property is read and written through the enclosing ``ManagedObject`` (see
    /// the static subscript).
    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    // Inlinable, so that it is compiled into the entity's own module: there the key paths are
    // literals that the optimizer turns into plain field reads, instead of building and
    // projecting key paths at run time on every access.
    /// Reads or writes the attribute in `object`'s values, loading a fault first; called by the
    /// compiler for the wrapped property, not by user code.
    @inlinable @inline(__always)
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let attribute = object[keyPath: storageKeyPath]
            if object.isPrototype {
                object.probedPropertyName = attribute.name
                return attribute.defaultValue
            }
            let index = object.entity.propertyIndex(attribute.name)
            return Value(storeValue: object.storeValue(at: index)) ?? attribute.defaultValue
        }
        set {
            let index = object.entity.propertyIndex(object[keyPath: storageKeyPath].name)
            object.setStoreValue(newValue.storeValue, at: index)
        }
    }
}

extension Attribute where Value: ExpressibleByNilLiteral {
    /// Declares an optional attribute `name`, nil (NULL) by default.
    public init(_ name: String) {
        self.init(wrappedValue: nil, name)
    }
}

@available(*, unavailable)
extension Attribute: Sendable {}

/// Declares a to-one relationship of a ``ManagedObject`` subclass, stored as the destination's
/// primary key, optionally with the destination's to-many inverse and a delete rule:
///
/// ```swift
/// @Relationship("station", inverse: "observations") var station: BuoyStation?
/// ```
///
/// Reading it gives the destination object of the same context (a fault until used); setting it
/// to an object of another context is a programming error. Setting it also changes the inverse
/// (see ``ToMany``), which is derived from it.
@propertyWrapper
public struct Relationship<Destination: ManagedObject> {
    @usableFromInline let name: String
    let inverse: String?
    let deleteRule: DeleteRule

    /// - Parameters:
    ///   - name: the relationship's name in the entity, which the inverse names.
    ///   - inverse: the destination's ``ToMany`` relationship that leads back, if it has one.
    ///   - deleteRule: what deleting this object does to the destination (Core Data's default,
    ///     `.nullify`, has nothing to do: the inverse is derived).
    public init(_ name: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// Unavailable: the property is read and written through the enclosing ``ManagedObject`` (see
    /// the static subscript).
    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { fatalError() }
        set { fatalError() }
    }

    // Inlinable for the same reason as `Attribute`'s.
    /// Reads the destination (an object of `object`'s context, nil when unset) or sets it (nil
    /// clears it); called by the compiler for the wrapped property, not by user code.
    @inlinable @inline(__always)
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Destination? {
        get {
            let relationship = object[keyPath: storageKeyPath]
            if object.isPrototype {
                object.probedPropertyName = relationship.name
                return nil
            }
            let index = object.entity.propertyIndex(relationship.name)
            guard case let .integer(primaryKey) = object.storeValue(at: index),
                let context = object.managedObjectContext
            else { return nil }
            let id = ObjectID(
                storeIdentifier: object.objectID.storeIdentifier,
                entityName: Destination.entity.name,
                primaryKey: primaryKey
            )
            return context.object(with: id) as? Destination
        }
        set {
            let index = object.entity.propertyIndex(object[keyPath: storageKeyPath].name)
            if let newValue {
                precondition(
                    newValue.managedObjectContext === object.managedObjectContext,
                    "\(object.objectID): a relationship must point at an object of the same context"
                )
                object.setStoreValue(.integer(newValue.objectID.primaryKey), at: index)
            } else {
                object.setStoreValue(.null, at: index)
            }
        }
    }
}

@available(*, unavailable)
extension Relationship: Sendable {}

/// What the model reads from a property wrapper when it derives an entity description.
protocol PersistentPropertyDeclaration {
    var propertyDescription: PropertyDescription { get }
    var defaultStoreValue: StoreValue { get }
}

/// What the model reads from a relationship's property wrapper.
protocol RelationshipDeclaration {
    var relationshipDescription: RelationshipDescription { get }
}

extension Relationship: RelationshipDeclaration {
    var relationshipDescription: RelationshipDescription {
        RelationshipDescription(
            name: name, kind: .toOne, destinationEntityName: Destination.entityName, inverseName: inverse,
            deleteRule: deleteRule)
    }
}

extension Attribute: PersistentPropertyDeclaration {
    var propertyDescription: PropertyDescription {
        PropertyDescription(name: name, type: Value.attributeType, isOptional: Value.isOptionalAttribute)
    }
    var defaultStoreValue: StoreValue { defaultValue.storeValue }
}

extension Relationship: PersistentPropertyDeclaration {
    var propertyDescription: PropertyDescription {
        PropertyDescription(
            name: name, type: .reference, isOptional: true, destinationEntityName: Destination.entity.name)
    }
    var defaultStoreValue: StoreValue { .null }
}
