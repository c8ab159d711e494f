import Foundation
import Synchronization
import LineupLocking

/// What a save pushed: the IDs of the inserted, updated and deleted objects. Delivered to the
/// context's observers after every save, and what ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``
/// applies to another context.
public struct ContextDidSave: Sendable {
    /// Objects the save inserted into the parent (or the store); empty for a batch request.
    public let insertedObjectIDs: Set<ObjectID>
    /// Objects whose changed values the save stored (for a batch update, the rows it changed).
    public let updatedObjectIDs: Set<ObjectID>
    /// Objects whose rows are gone after the save: those it deleted, and those it updated that the
    /// parent found deleted already (for a batch delete, the rows it deleted).
    public let deletedObjectIDs: Set<ObjectID>
    /// The rows as the parent stored them, so that a merge needs no I/O.
    let rows: [ObjectID: AcceptedChange]

    /// `exceptions` are the parent's (see ``AcceptedChange``): every other change was stored as
    /// pushed. Built only when someone listens (see `postDidSave` and `notifyChildren`).
    init(changes: ChangeSet, exceptions: [ObjectID: AcceptedChange]) {
        var inserted = Set<ObjectID>()
        var updated = Set<ObjectID>()
        var deleted = Set<ObjectID>()
        var rows: [ObjectID: AcceptedChange] = Dictionary(minimumCapacity: changes.count)
        for (id, change) in changes where rows[id] == nil {
            let outcome = exceptions.isEmpty ? change.outcomeAsPushed : exceptions[id] ?? change.outcomeAsPushed
            switch (change.kind, outcome) {
            case (.insert, .stored): inserted.insert(id)
            case (.update, .stored): updated.insert(id)
            case (.delete, .removed), (.update, .removed): deleted.insert(id)
            default: break
            }
            rows[id] = outcome
        }
        self.insertedObjectIDs = inserted
        self.updatedObjectIDs = updated
        self.deletedObjectIDs = deleted
        self.rows = rows
    }

    /// The rows that a batch request touched, as the store left them.
    init(rows: [ObjectID: AcceptedChange]) {
        var updated = Set<ObjectID>()
        var deleted = Set<ObjectID>()
        for (id, outcome) in rows {
            switch outcome {
            case .stored: updated.insert(id)
            case .removed: deleted.insert(id)
            }
        }
        self.insertedObjectIDs = []
        self.updatedObjectIDs = updated
        self.deletedObjectIDs = deleted
        self.rows = rows
    }
}

/// Stops an observation when cancelled or released.
public final class SaveObservation: Sendable {
    private let cancellation: @Sendable () -> Void
    init(cancel: @escaping @Sendable () -> Void) { self.cancellation = cancel }
    /// Removes the observer (releasing the observation does the same); cancelling twice is
    /// harmless.
    /// An event being delivered on another thread at that moment may still reach it.
    public func cancel() { cancellation() }
    deinit { cancellation() }
}

extension ManagedObjectContext {
    /// Calls `observer` after every successful save of this context, on the saving queue. Keep the
    /// returned observation: releasing it ends the observation.
    public func observeDidSave(_ observer: @escaping @Sendable (ContextDidSave) -> Void) -> SaveObservation {
        didSaveObservers.add(observer)
    }

    /// The did-save events of this context, as an async sequence (ends when the task is cancelled
    /// and the stream released).
    public func didSaveEvents() -> AsyncStream<ContextDidSave> {
        didSaveObservers.stream()
    }

    /// Applies another context's saved changes to this context's registered objects: updated
    /// objects take the new values, and those with unsaved changes keep them on top, based on the
    /// new version (as Core Data refreshes them: their next save is no conflict with the merged
    /// one, and their own changes win where both changed a property); deleted ones stay
    /// registered, marked deleted, with their last values readable, and count among
    /// ``deletedObjects`` until the next save, which pushes nothing for them (their rows are gone
    /// already) and forgets them, as Core Data does. Call on this context's queue.
    public func mergeChanges(fromContextDidSave event: ContextDidSave) {
        preconditionOnQueue()
        for (id, accepted) in event.rows {
            switch accepted {
            case .removed:
                // A change received from a child for the row would be pushed over a row that is
                // gone: it becomes an object here, so that it is deleted with the rest.
                let object = registeredObject(for: id) ?? (childChanges[id] != nil ? self.object(with: id) : nil)
                if let object { markDeletedElsewhere(object) }
            case let .stored(row):
                // A change received from a child is rebased as an object's would be.
                let object = registeredObject(for: id) ?? (childChanges[id] != nil ? self.object(with: id) : nil)
                guard let object else { continue }
                switch object.state {
                case .fault:
                    continue
                case .clean where object.changedMask.isEmpty:
                    object.values = row.values
                    object.stamp = row.stamp
                    object.baseStamp = row.stamp
                    noteObjectChange { $0.noteRefreshed(id) }
                case .clean:
                    var values = row.values
                    for index in object.changedMask.indexes { values[index] = object.values[index] }
                    object.values = values
                    object.committedValuesStorage = row.values
                    object.baseStamp = row.stamp
                    noteObjectChange { $0.noteRefreshed(id) }
                case .deleted(.pending):
                    // The delete stands, over the new version.
                    object.values = row.values
                    object.baseStamp = row.stamp
                default:
                    continue
                }
            }
        }
        needsPublish = true
    }

    /// Marks `object` deleted by a save elsewhere: its own unsaved changes are dropped (its row is
    /// gone), its values stay readable as they were, and the context holds it until its next
    /// save or rollback.
    private func markDeletedElsewhere(_ object: ManagedObject) {
        switch object.state {
        case .fault:
            object.values = object.entity.defaultValues
        case .clean, .deleted(.pending):
            break
        case .inserted, .deleted(.unsavedInsert), .deleted(.merged), .inaccessible, .detached:
            // An insert is this context's own row; the others are gone already.
            return
        }
        object.state = .deleted(.merged)
        object.changedMask = .empty
        object.committedValuesStorage = nil
        changedObjects[object.objectID] = object
        noteObjectChange { $0.noteDeleted(object.objectID) }
    }

    /// Calls the observers, building the event only if there are any: a bulk import with nobody
    /// listening pays nothing per row for notifications.
    func postDidSave(_ event: @autoclosure () -> ContextDidSave) {
        didSaveObservers.post(event())
    }

    /// Downward flows are asynchronous: children that merge automatically get the event on their
    /// own queues, later. The event is built only if such a child exists. `saver` is the child
    /// whose save this is, if any: it has the changes already.
    func notifyChildren(of event: @autoclosure () -> ContextDidSave, except saver: ManagedObjectContext?) {
        let children = children.withLock { $0.compactMap(\.context) }.filter {
            $0 !== saver && $0.automaticallyMergesChangesFromParent
        }
        guard !children.isEmpty else { return }
        let event = event()
        for child in children {
            child.perform { child.mergeChanges(fromContextDidSave: event) }
        }
    }
}
