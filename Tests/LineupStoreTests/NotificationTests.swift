import Foundation
import LineupStore
import Testing

@Suite struct NotificationTests {
    @Test(arguments: StoreKind.allCases) func didSaveCarriesTheIDsAndMergesIntoAnotherContext(_ store: StoreKind) async throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let (kept, doomed) = try seed.performAndWait {
            let kept = seed.insertEntry("kept", rating: 1)
            let doomed = seed.insertEntry("doomed")
            try seed.save()
            return (kept.objectID, doomed.objectID)
        }
        let observer = stack.container.newTaskContext(name: "observer")
        let (keptEntry, doomedEntry) = try observer.performAndWait {
            (try observer.existingObject(with: kept) as! Entry, try observer.existingObject(with: doomed) as! Entry)
        }
        let saver = stack.container.newTaskContext(name: "saver")
        let events = saver.didSaveEvents()
        let inserted = try saver.performAndWait {
            (try saver.existingObject(with: kept) as! Entry).rating = 5
            saver.delete(try saver.existingObject(with: doomed))
            let new = saver.insertEntry("new")
            try saver.save()
            return new.objectID
        }
        var iterator = events.makeAsyncIterator()
        let event = try #require(await iterator.next())
        #expect(event.insertedObjectIDs == [inserted])
        #expect(event.updatedObjectIDs == [kept])
        #expect(event.deletedObjectIDs == [doomed])
        let (rating, deleted) = observer.performAndWait {
            observer.mergeChanges(fromContextDidSave: event)
            return (keptEntry.rating, doomedEntry.isDeleted)
        }
        #expect(rating == 5)
        #expect(deleted == true)
    }

    @Test(arguments: StoreKind.allCases) func observationEndsWhenReleased(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        let counter = Counter()
        var observation: SaveObservation? = context.observeDidSave { _ in counter.increment() }
        try context.performAndWait {
            context.insertEntry("one")
            try context.save()
        }
        observation = nil
        try context.performAndWait {
            context.insertEntry("two")
            try context.save()
        }
        #expect(counter.value == 1)
        _ = observation
    }
}
