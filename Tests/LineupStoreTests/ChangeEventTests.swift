import Foundation
import LineupStore
import Synchronization
import Testing

/// The events Core Data posts inside a context: objects-did-change and will-save.
@Suite struct ChangeEventTests {
    /// Collects a context's events, in order.
    final class Recorder<Event: Sendable>: Sendable {
        let events = Mutex<[Event]>([])
        var all: [Event] { events.withLock { $0 } }
        func record(_ event: Event) { events.withLock { $0.append(event) } }
    }

    @Test(arguments: StoreKind.allCases) func objectsDidChangeIsPostedAtTheEndOfEachBlockWithWhatChanged(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        let (kept, doomed) = try context.performAndWait {
            let kept = context.insertEntry("kept", rating: 1)
            let doomed = context.insertEntry("doomed")
            try context.save()
            return (kept.objectID, doomed.objectID)
        }
        let recorder = Recorder<ObjectsDidChange>()
        let observation = context.observeObjectsDidChange { recorder.record($0) }

        let inserted = try context.performAndWait {
            (try context.existingObject(with: kept) as! Entry).rating = 5
            context.delete(try context.existingObject(with: doomed))
            let new = context.insertEntry("new")
            new.rating = 2  // an inserted object changed is still only inserted
            // Inserted and deleted in one block: in neither set.
            context.delete(context.insertEntry("fleeting"))
            return new.objectID
        }
        #expect(recorder.all.count == 1)
        let event = try #require(recorder.all.first)
        #expect(event.insertedObjectIDs == [inserted])
        #expect(event.updatedObjectIDs == [kept])
        #expect(event.deletedObjectIDs == [doomed])

        context.performAndWait {}
        #expect(recorder.all.count == 1, "a block that changes nothing posts nothing")

        context.performAndWait {
            (context.registeredObject(for: kept) as! Entry).rating = 1
        }
        #expect(recorder.all.count == 2)
        #expect(recorder.all.last?.updatedObjectIDs == [kept], "set back to its old value: still a change")
        observation.cancel()

        context.performAndWait { (context.registeredObject(for: kept) as! Entry).rating = 3 }
        #expect(recorder.all.count == 2, "no event after the observation ended")
    }

    @Test(arguments: StoreKind.allCases) func theEventsComeAsAnAsyncSequenceToo(_ store: StoreKind) async throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        let events = context.objectsDidChangeEvents()
        let inserted = context.performAndWait { context.insertEntry("spot").objectID }
        var iterator = events.makeAsyncIterator()
        let event = try #require(await iterator.next())
        #expect(event.insertedObjectIDs == [inserted])
    }

    @Test(arguments: StoreKind.allCases) func aMergePostsTheRefreshedAndTheDeletedObjects(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let (kept, doomed) = try seed.performAndWait {
            let kept = seed.insertEntry("kept", rating: 1)
            let doomed = seed.insertEntry("doomed")
            try seed.save()
            return (kept.objectID, doomed.objectID)
        }
        let observer = stack.container.newTaskContext(name: "observer")
        let held = try observer.performAndWait {
            [try observer.existingObject(with: kept), try observer.existingObject(with: doomed)]
        }
        let saved = Mutex<ContextDidSave?>(nil)
        let saver = stack.container.newTaskContext(name: "saver")
        let saving = saver.observeDidSave { event in saved.withLock { $0 = event } }
        try saver.performAndWait {
            (try saver.existingObject(with: kept) as! Entry).rating = 5
            saver.delete(try saver.existingObject(with: doomed))
            try saver.save()
        }
        saving.cancel()
        let recorder = Recorder<ObjectsDidChange>()
        let observation = observer.observeObjectsDidChange { recorder.record($0) }
        try observer.performAndWait {
            observer.mergeChanges(fromContextDidSave: try #require(saved.withLock { $0 }))
        }
        withExtendedLifetime(held) {}
        #expect(recorder.all.count == 1)
        #expect(recorder.all.first?.refreshedObjectIDs == [kept])
        #expect(recorder.all.first?.deletedObjectIDs == [doomed])
        observation.cancel()
    }

    @Test(arguments: StoreKind.allCases) func willSaveComesFirstAndWhatItsObserverChangesIsSaved(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        let order = Recorder<String>()
        let changes = context.observeObjectsDidChange { _ in order.record("objects did change") }
        let willSave = context.observeWillSave { event in
            order.record("will save \(event.contextName)")
            // On the context's queue: the observer may still change objects, as in Core Data.
            for case let entry as Entry in context.insertedObjects { entry.location = "stamped by will-save" }
        }
        let didSave = context.observeDidSave { _ in order.record("did save") }
        let id = try context.performAndWait {
            let entry = context.insertEntry("spot")
            try context.save()
            return entry.objectID
        }
        #expect(order.all == ["objects did change", "will save job", "did save"])
        let location = try stack.main.performAndWait { (try stack.main.existingObject(with: id) as! Entry).location }
        #expect(location == "stamped by will-save")

        try context.performAndWait { try context.save() }
        #expect(order.all.count == 3, "a save with no changes posts no will-save")
        _ = (changes, willSave, didSave)
    }

    @Test(arguments: StoreKind.allCases) func aParentPostsTheChangesAChildSavedIntoItsObjects(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let id = try seed.performAndWait {
            let entry = seed.insertEntry("spot", rating: 1)
            try seed.save()
            return entry.objectID
        }
        let held = try stack.main.performAndWait { try stack.main.existingObject(with: id) }
        let recorder = Recorder<ObjectsDidChange>()
        let observation = stack.main.observeObjectsDidChange { recorder.record($0) }
        let child = stack.container.newTaskContext(name: "child")
        try child.performAndWait {
            (try child.existingObject(with: id) as! Entry).rating = 4
            try child.save()
        }
        withExtendedLifetime(held) {}
        #expect(recorder.all.map(\.updatedObjectIDs) == [[id]])
        observation.cancel()
    }
}
