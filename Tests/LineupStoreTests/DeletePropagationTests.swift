import Foundation
import LineupStore
import Testing

/// Delete rules at the end of the event, as Core Data's `processPendingChanges()` and
/// `propagatesDeletesAtEndOfEvent` (true by default) have them: not only at the save.
@Suite struct DeletePropagationTests {
    /// A spot with two sessions (nullify) and a buoy with two readings of a note each (cascade),
    /// saved; the IDs.
    private func seed(_ context: ManagedObjectContext) throws -> (spot: Spot, sessions: [Session], buoy: Buoy, readings: [BuoyReading], notes: [ReadingNote]) {
        let spot = Spot(context: context)
        let sessions = (0..<2).map { _ in Session(context: context) }
        spot.sessions = sessions
        let buoy = Buoy(context: context)
        var readings: [BuoyReading] = []
        var notes: [ReadingNote] = []
        for _ in 0..<2 {
            let reading = BuoyReading(context: context)
            reading.buoy = buoy
            let note = ReadingNote(context: context)
            note.reading = reading
            readings.append(reading)
            notes.append(note)
        }
        try context.save()
        return (spot, sessions, buoy, readings, notes)
    }

    @Test(arguments: StoreKind.allCases) func processPendingChangesNullifiesAndCascades(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            #expect(context.propagatesDeletesAtEndOfEvent, "true by default, as in Core Data")
            let graph = try seed(context)
            context.delete(graph.spot)
            context.delete(graph.buoy)
            #expect(graph.sessions.allSatisfy { $0.spot === graph.spot }, "nothing propagated before the end of the event")

            context.processPendingChanges()
            #expect(graph.sessions.allSatisfy { $0.spot == nil && !$0.isDeleted && $0.hasChanges })
            #expect(graph.readings.allSatisfy { $0.isDeleted })
            #expect(graph.notes.allSatisfy { $0.isDeleted }, "transitively")
            #expect(Set(context.deletedObjects.map(\.objectID)) == Set(([graph.spot, graph.buoy] + graph.readings + graph.notes).map(\.objectID)))
            try context.save()
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Session") == 2)
        #expect(try stack.rowsOnDisk("BuoyReading") == 0)
        #expect(try stack.rowsOnDisk("ReadingNote") == 0)
    }

    @Test(arguments: StoreKind.allCases) func theEndOfABlockPropagatesAndPostsWhatItDid(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        let graph = try context.performAndWait { try seed(context) }
        let recorder = ChangeEventTests.Recorder<ObjectsDidChange>()
        let observation = context.observeObjectsDidChange { recorder.record($0) }
        context.performAndWait {
            context.delete(graph.spot)
            context.delete(graph.buoy)
        }
        context.performAndWait {
            #expect(graph.sessions.allSatisfy { $0.spot == nil })
            #expect((graph.readings + graph.notes).allSatisfy { $0.isDeleted })
        }
        #expect(recorder.all.count == 1)
        let event = try #require(recorder.all.first)
        #expect(event.deletedObjectIDs == Set(([graph.spot, graph.buoy] + graph.readings + graph.notes).map(\.objectID)))
        #expect(event.updatedObjectIDs == Set(graph.sessions.map(\.objectID)), "the nullified sessions changed")
        observation.cancel()
    }

    @Test(arguments: StoreKind.allCases) func switchedOffTheRulesWaitForTheSave(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        context.propagatesDeletesAtEndOfEvent = false
        let graph = try context.performAndWait { try seed(context) }
        context.performAndWait {
            context.delete(graph.spot)
            context.delete(graph.buoy)
            context.processPendingChanges()
        }
        try context.performAndWait {
            #expect(graph.sessions.allSatisfy { $0.spot === graph.spot && !$0.hasChanges })
            #expect(!(graph.readings + graph.notes).contains { $0.isDeleted })
            try context.save()
            #expect(graph.sessions.allSatisfy { $0.spot == nil })
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Session") == 2)
        #expect(try stack.rowsOnDisk("BuoyReading") == 0)
        #expect(try stack.rowsOnDisk("ReadingNote") == 0)
    }

    @Test(arguments: StoreKind.allCases) func aDenialAtTheEndOfTheEventChangesNothingAndTheSaveReportsIt(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store, model: relationshipModel)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let region = Region(context: context)
            let beaches = (0..<2).map { _ in Beach(context: context) }
            region.beaches = beaches
            let spot = Spot(context: context)
            let session = Session(context: context)
            session.spot = spot
            try context.save()

            context.delete(region)
            context.delete(spot)
            context.processPendingChanges()
            // The whole closure is worked out first: the nullify waits with the denied delete.
            #expect(session.spot?.objectID == spot.objectID)
            #expect(beaches.allSatisfy { $0.region === region && !$0.isDeleted })
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.code == .deleteDenied)
        }
    }
}
