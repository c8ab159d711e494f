import Foundation

/// An object of the object graph: one row of an entity, as seen by one context.
///
/// Declare an entity by subclassing and declaring its properties with ``Attribute`` and
/// ``Relationship``; the entity description is derived from these declarations:
///
/// ```swift
/// final class JournalEntry: ManagedObject {
///     @Attribute("date") var date: Date?
///     @Attribute("rating") var rating: Int?
/// }
/// let entry = JournalEntry(context: context)   // inserted, with its permanent ID
/// ```
///
/// A managed object belongs to exactly one context and is used only on that context's queue
/// (inside `perform` or `performAndWait`); it is not `Sendable`. Pass its ``objectID`` instead.
open class ManagedObject {
    /// The object's permanent ID, fixed at insertion: what to pass to another context or queue.
    public let objectID: ObjectID
    /// Not retained, as in `RowChange`: entity descriptions are never released (see
    /// `EntityCache`).
    public unowned(unsafe) let entity: EntityDescription
    /// The context the object belongs to, held weakly: nil once that context is gone, and for
    /// the model's prototypes.
    public var managedObjectContext: ManagedObjectContext? { contextLink?.context }
    /// The weak reference to the context that its objects share (see ``ContextLink``); nil for
    /// prototypes.
    private let contextLink: ContextLink?
    /// The context's identity (see `CurrentContext`), compared on every access; nil for prototypes.
    /// Kept beside the link so that the check loads no weak reference.
    private let contextIdentity: UnsafeMutableRawPointer?

    // The state below is confined to the context's queue.

    /// The current values, one per property; empty while the object is a fault.
    ///
    /// Unchecked exclusivity: every access happens on the context's queue and none overlaps
    /// another (no `inout` use, no closure that reaches back), so the run-time check that a class
    /// property otherwise gets at every write only costs time, on every attribute set.
    @exclusivity(unchecked) var values: [StoreValue]
    /// The values as of the last load or save, kept once the object has changes.
    var committedValuesStorage: [StoreValue]?
    /// Properties changed since the last load or save.
    var changedMask = PropertyMask.empty
    /// The version of `values` as this context sees it.
    var stamp: Int64 = 0
    /// The version in the parent that this object's unsaved changes are based on.
    var baseStamp: Int64 = 0
    var state: State

    enum State {
        case fault
        case clean
        case inserted
        case deleted(Deletion)
        /// The row is gone from the store (deleted elsewhere): accessors give defaults.
        case inaccessible
        /// Forgotten by its context (rolled back insert, reset): no longer part of any graph.
        case detached
    }

    /// How an object came to be deleted, which decides what its context's next save does with it.
    enum Deletion {
        /// Deleted in this context: the next save deletes the row.
        case pending
        /// Inserted and deleted again before any save: there is no row, so nothing to save.
        case unsavedInsert
        /// Deleted by another context's save, merged here (see `mergeChanges(fromContextDidSave:)`):
        /// the row is gone already, so the next save pushes nothing and only forgets the object.
        case merged
    }

    // Used only while the model is derived from a prototype (see `EntityDescription+Reflection`).
    @usableFromInline let isPrototype: Bool
    @usableFromInline var probedPropertyName: String?

    /// Creates an object for a context or a prototype for reflection. Subclasses must not add
    /// stored properties other than ``Attribute`` and ``Relationship`` declarations.
    public required init(_ initialization: ObjectInitialization) {
        self.objectID = initialization.objectID
        self.entity = initialization.entity
        self.contextLink = initialization.context?.objectLink
        self.contextIdentity = initialization.context?.identity
        self.values = initialization.values
        self.stamp = initialization.stamp
        self.baseStamp = initialization.stamp
        self.isPrototype = initialization.isPrototype
        self.state = initialization.state
    }

    /// Inserts a new object into `context`, with its permanent ID and default values.
    public convenience init(context: ManagedObjectContext) {
        self.init(context.initializationForInsert(of: Self.self))
        context.registerInserted(self)
    }

    /// The entity name; the class name unless overridden.
    open class var entityName: String { String(describing: self) }
    /// Groups of properties whose values must be unique together.
    open class var uniquenessConstraints: [[String]] { [] }
    /// Extra indexes for fetches.
    open class var indexes: [[String]] { [] }

    /// Called before a save for inserted and updated objects; throw to refuse the save.
    open func validateForSave() throws {}

    /// Whether the values are not loaded yet; the first read of a property loads them (or
    /// ``load()``).
    public var isFault: Bool {
        if case .fault = state { return true }
        return false
    }
    /// Whether the object was inserted into its context and not saved yet.
    public var isInserted: Bool {
        if case .inserted = state { return true }
        return false
    }
    /// Whether a saved (not inserted) object has changed properties not saved yet.
    public var isUpdated: Bool {
        if case .clean = state { return !changedMask.isEmpty }
        return false
    }
    /// True when the object is marked for deletion, or when its row no longer exists.
    public var isDeleted: Bool {
        switch state {
        case .deleted, .inaccessible: return true
        default: return false
        }
    }
    /// Whether the next save of its context has something to do for it: an insert, a deletion or
    /// changed properties.
    public var hasChanges: Bool {
        switch state {
        case .inserted, .deleted: return true
        case .clean: return !changedMask.isEmpty
        default: return false
        }
    }

    /// Loads the values of a fault now; throws ``StoreError`` with `.objectNotFound` when the row is
    /// gone.
    public func load() throws {
        guard let context = managedObjectContext else {
            throw StoreError(.objectNotFound, "\(objectID) has no context")
        }
        try context.fulfillFault(self, throwing: true)
        if case .inaccessible = state {
            throw StoreError(.objectNotFound, "\(objectID) does not exist")
        }
    }

    /// The values of changed properties, by property name.
    public func changedValues() -> [String: StoreValue] {
        var result: [String: StoreValue] = [:]
        for index in changedMask.indexes {
            result[entity.properties[index].name] = values[index]
        }
        return result
    }

    /// The values as of the last load or save, by property name.
    public func committedValues() -> [String: StoreValue] {
        preconditionOnContextQueue()
        let committed = committedValuesStorage ?? values
        var result: [String: StoreValue] = [:]
        for (index, property) in entity.properties.enumerated() where index < committed.count {
            result[property.name] = committed[index]
        }
        return result
    }

    // MARK: - Value access for the property wrappers

    @usableFromInline
    func storeValue(at index: Int) -> StoreValue {
        preconditionOnContextQueue()
        if case .fault = state {
            try? managedObjectContext?.fulfillFault(self, throwing: false)
        }
        guard index < values.count else { return entity.defaultValues[index] }
        return values[index]
    }

    @usableFromInline
    func setStoreValue(_ value: StoreValue, at index: Int) {
        preconditionOnContextQueue()
        if case .fault = state {
            try? managedObjectContext?.fulfillFault(self, throwing: false)
        }
        switch state {
        case .inserted:
            values[index] = value
        case .clean:
            guard values[index] != value else { return }
            if changedMask.isEmpty {
                committedValuesStorage = values
                managedObjectContext?.registerChanged(self)
            }
            values[index] = value
            changedMask.insert(index)
            managedObjectContext?.noteObjectChange { $0.noteUpdated(objectID) }
        case .deleted, .inaccessible, .detached, .fault:
            preconditionFailure("\(objectID): cannot set \(entity.properties[index].name) on a deleted object")
        }
    }

    /// Traps when the caller is not on the object's context's queue, in release builds too (see
    /// `ManagedObjectContext.preconditionOnQueue()`).
    @inline(__always)
    func preconditionOnContextQueue() {
        if _slowPath(CurrentContext.identity != contextIdentity) { checkUseOffContextQueue() }
    }

    @inline(never)
    private func checkUseOffContextQueue() {
        // A prototype has no context and serves the model anywhere; an object whose context is
        // gone belongs to no queue.
        guard !isPrototype, let context = managedObjectContext else { return }
        fatalError(
            "\(objectID) of context \(context.name) used \(CurrentContext.whereabouts): use perform or performAndWait")
    }
}

@available(*, unavailable)
extension ManagedObject: Sendable {}

extension ManagedObject: CustomStringConvertible {
    /// `<Entity primaryKey>`, with ` fault` while it is one: for log lines and debugging.
    public var description: String {
        "<\(entity.name) \(objectID.primaryKey)\(isFault ? " fault" : "")>"
    }
}

/// What a `ManagedObject` is created with: made by contexts (and by the model for its
/// prototypes), never by user code.
public struct ObjectInitialization {
    let objectID: ObjectID
    // Neither is retained: the struct lives only for the initializer it is passed to, which its
    // maker (the context, or the model for a prototype) calls at once while holding both, and
    // entity descriptions are never released (see `EntityCache`). A retain and release of the
    // context for every object made would take the slow path each time, as the context has weak
    // references (its `ContextLink`'s and its parent's), which keep its counts in a side table.
    unowned(unsafe) let entity: EntityDescription
    unowned(unsafe) let context: ManagedObjectContext?
    let values: [StoreValue]
    let stamp: Int64
    let state: ManagedObject.State
    let isPrototype: Bool
}

@available(*, unavailable)
extension ObjectInitialization: Sendable {}
