import Foundation
import LineupStore
import Testing

/// When a context's event ends (see the Events article): at the end of every outermost `perform`
/// and, unlike Core Data, `performAndWait` block, and at `processPendingChanges()`. Pinned here
/// because it is a deliberate difference: a server's code runs in `performAndWait` (a job's whole
/// run is one), and without it a job's context would post nothing, propagate no delete and
/// publish nothing to its children until it saved.
@Suite struct EventTimingTests {
    @Test(arguments: StoreKind.allCases) func theOutermostPerformAndWaitEndsAnEvent(_ store: StoreKind) async throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        let recorder = ChangeEventTests.Recorder<ObjectsDidChange>()
        let observation = context.observeObjectsDidChange { recorder.record($0) }
        let inserted = context.performAndWait {
            let first = context.insertEntry("first")
            // Nested: it runs inline, inside the outer block's event.
            let second = context.performAndWait { context.insertEntry("second") }
            #expect(recorder.all.isEmpty, "a nested performAndWait ends no event")
            return [first.objectID, second.objectID]
        }
        #expect(recorder.all.map(\.insertedObjectIDs) == [Set(inserted)], "posted before performAndWait returns")

        // Published at the end of the event too: a child sees the unsaved inserts.
        let child = context.newChildContext(name: "child")
        let seen = try child.performAndWait { try child.count(for: FetchRequest<Entry>()) }
        #expect(seen == 2)

        let third = try await context.perform { context.insertEntry("third").objectID }
        #expect(recorder.all.map(\.insertedObjectIDs) == [Set(inserted), [third]], "and at the end of perform, as in Core Data")
        observation.cancel()
    }
}
