/// What changed in a context since its last such event: Core Data's
/// `NSManagedObjectContextObjectsDidChange`, as IDs (managed objects stay on their context's
/// queue). Posted on the context's queue at the end of each outermost `perform` or
/// `performAndWait` block that changed something, at ``ManagedObjectContext/processPendingChanges()``,
/// and at the start of a save.
///
/// As in Core Data, an object inserted and deleted between two events is in neither set, an
/// object inserted and then changed is only inserted, and an object changed and then deleted is
/// only deleted. An object set back to its old value still counts as updated: a change was made.
public struct ObjectsDidChange: Sendable {
    /// Objects inserted since the last event (and not deleted again).
    public internal(set) var insertedObjectIDs: Set<ObjectID> = []
    /// Objects changed since the last event, not counting those inserted or deleted in it.
    public internal(set) var updatedObjectIDs: Set<ObjectID> = []
    /// Objects deleted since the last event, not counting those inserted in it.
    public internal(set) var deletedObjectIDs: Set<ObjectID> = []
    /// Objects that took another context's saved values in a merge (Core Data's refreshed objects).
    public internal(set) var refreshedObjectIDs: Set<ObjectID> = []

    /// Whether nothing changed: no set has an ID. An empty event is not posted.
    public var isEmpty: Bool {
        insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty && refreshedObjectIDs.isEmpty
    }

    mutating func noteInserted(_ id: ObjectID) {
        insertedObjectIDs.insert(id)
    }

    mutating func noteUpdated(_ id: ObjectID) {
        guard !insertedObjectIDs.contains(id) else { return }
        updatedObjectIDs.insert(id)
    }

    mutating func noteDeleted(_ id: ObjectID) {
        if insertedObjectIDs.remove(id) != nil { return }
        updatedObjectIDs.remove(id)
        refreshedObjectIDs.remove(id)
        deletedObjectIDs.insert(id)
    }

    mutating func noteRefreshed(_ id: ObjectID) {
        refreshedObjectIDs.insert(id)
    }
}
