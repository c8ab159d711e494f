import Foundation
import Synchronization
import LineupStore
import Testing

/// Merging saves into other contexts, as Core Data's `mergeChanges(fromContextDidSave:)` and
/// `automaticallyMergesChangesFromParent` do it.
@Suite struct MergeTests {
    /// Saves `entries` (location, rating) into the main context and flushes them to disk.
    private func seed(_ stack: TemporaryStack, _ entries: [(String, Int)]) throws -> [ObjectID] {
        let seed = stack.container.newTaskContext(name: "seed")
        let ids = try seed.performAndWait {
            let objects = entries.map { seed.insertEntry($0.0, rating: $0.1) }
            try seed.save()
            return objects.map(\.objectID)
        }
        try stack.container.flush()
        return ids
    }

    /// Deletes `id` in a context of its own and returns the save's event.
    private func deleteElsewhere(_ id: ObjectID, in stack: TemporaryStack) throws -> ContextDidSave {
        let saver = stack.container.newTaskContext(name: "saver")
        let event = Mutex<ContextDidSave?>(nil)
        let observation = saver.observeDidSave { saved in event.withLock { $0 = saved } }
        try saver.performAndWait {
            saver.delete(try saver.existingObject(with: id))
            try saver.save()
        }
        observation.cancel()
        return try #require(event.withLock { $0 })
    }

    @Test(arguments: StoreKind.allCases) func aMergedDeleteKeepsTheObjectRegisteredDeletedAndReadableUntilTheNextSave(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let doomedID = try #require(try seed(stack, [("doomed", 3)]).first)
        let observer = stack.container.newTaskContext(name: "observer")
        let doomed = try observer.performAndWait { try observer.existingObject(with: doomedID) as! Entry }
        let event = try deleteElsewhere(doomedID, in: stack)

        try observer.performAndWait {
            observer.mergeChanges(fromContextDidSave: event)
            #expect(observer.registeredObject(for: doomedID) === doomed)
            #expect(doomed.isDeleted)
            #expect(doomed.location == "doomed")
            #expect(doomed.rating == 3)
            #expect(observer.deletedObjects.map(\.objectID) == [doomedID])
            #expect(observer.hasChanges)

            // The row is gone already: the save pushes nothing (no conflict over a row that is
            // not there) and forgets the object.
            try observer.save()
            #expect(observer.registeredObject(for: doomedID) == nil)
            #expect(observer.deletedObjects.isEmpty)
            #expect(!observer.hasChanges)
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    @Test(arguments: StoreKind.allCases) func aMergedDeleteWinsOverUnsavedChangesAndIsNotUndoneByRollback(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try seed(stack, [("doomed", 3), ("kept", 1)])
        let observer = stack.container.newTaskContext(name: "observer")
        let (doomed, kept) = try observer.performAndWait {
            let doomed = try observer.existingObject(with: ids[0]) as! Entry
            doomed.rating = 4
            let kept = try observer.existingObject(with: ids[1]) as! Entry
            kept.rating = 2
            return (doomed, kept)
        }
        let event = try deleteElsewhere(ids[0], in: stack)

        observer.performAndWait {
            observer.mergeChanges(fromContextDidSave: event)
            #expect(doomed.isDeleted)
            #expect(doomed.rating == 4, "the last values stay readable, unsaved ones included")
            #expect(observer.updatedObjects.map(\.objectID) == [ids[1]])

            observer.rollback()
            #expect(kept.rating == 1)
            // Its row is gone: un-deleting it would leave an object that no save can store.
            #expect(doomed.isDeleted)
            #expect(observer.registeredObject(for: ids[0]) == nil)
            #expect(observer.deletedObjects.isEmpty)
            #expect(!observer.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func aMergedDeleteOfARowDeletedHereToo(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let doomedID = try #require(try seed(stack, [("doomed", 3)]).first)
        let observer = stack.container.newTaskContext(name: "observer")
        try observer.performAndWait { observer.delete(try observer.existingObject(with: doomedID)) }
        let event = try deleteElsewhere(doomedID, in: stack)

        try observer.performAndWait {
            observer.mergeChanges(fromContextDidSave: event)
            #expect(observer.deletedObjects.map(\.objectID) == [doomedID])
            // Deleted twice is deleted once: no conflict with the save that got there first.
            try observer.save()
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    @Test(arguments: StoreKind.allCases) func aChildThatMergesAutomaticallySeesItsParentsOwnSaves(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try seed(stack, [("updated", 1), ("deleted", 2)])
        let follower = stack.main.newChildContext(name: "follower")
        follower.automaticallyMergesChangesFromParent = true
        let bystander = stack.main.newChildContext(name: "bystander")
        let (updated, deleted, unmerged) = try follower.performAndWait {
            (
                try follower.existingObject(with: ids[0]) as! Entry,
                try follower.existingObject(with: ids[1]) as! Entry,
                try bystander.performAndWait { try bystander.existingObject(with: ids[0]) as! Entry }
            )
        }

        try stack.main.performAndWait {
            (try stack.main.existingObject(with: ids[0]) as! Entry).rating = 5
            stack.main.delete(try stack.main.existingObject(with: ids[1]))
            try stack.main.save()
        }

        // The merge is queued on the follower's queue before the parent's save returns, so the
        // next block on that queue runs after it.
        follower.performAndWait {
            #expect(updated.rating == 5)
            #expect(deleted.isDeleted)
            #expect(follower.deletedObjects.map(\.objectID) == [ids[1]])
        }
        bystander.performAndWait {
            #expect(unmerged.rating == 1, "a child that did not opt in keeps its values")
        }
    }

    @Test(arguments: StoreKind.allCases) func aChildThatMergesAutomaticallyKeepsItsOwnChangesOnTop(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let id = try #require(try seed(stack, [("spot", 1)]).first)
        let follower = stack.main.newChildContext(name: "follower")
        follower.automaticallyMergesChangesFromParent = true
        let entry = try follower.performAndWait {
            let entry = try follower.existingObject(with: id) as! Entry
            entry.location = "renamed here"
            return entry
        }

        try stack.main.performAndWait {
            (try stack.main.existingObject(with: id) as! Entry).rating = 5
            try stack.main.save()
        }

        try follower.performAndWait {
            #expect(entry.rating == 5)
            #expect(entry.location == "renamed here")
            #expect(follower.updatedObjects.map(\.objectID) == [id])
            // Rebased on the merged version, as Core Data refreshes an object with changes: the
            // save is no conflict.
            try follower.save()
        }
        try stack.container.flush()
        let (location, rating) = try stack.main.performAndWait {
            let stored = try stack.main.existingObject(with: id) as! Entry
            return (stored.location, stored.rating)
        }
        #expect(location == "renamed here")
        #expect(rating == 5)
    }
}
