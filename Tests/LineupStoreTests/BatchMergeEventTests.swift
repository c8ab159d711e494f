import Foundation
import LineupStore
import Testing

/// Merging a batch request's result (`mergeChanges(fromRemoteContextSave:into:)`) announces what
/// it did, as Core Data's merge posts `NSManagedObjectContextObjectsDidChange` with the refreshed
/// objects (updated rows) beside the deleted ones.
@Suite struct BatchMergeEventTests {
    @Test(arguments: StoreKind.allCases) func aMergedBatchResultPostsTheRefreshedAndTheDeletedObjects(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let ids = try seed.performAndWait {
            let entries = (0..<4).map { seed.insertEntry("spot", rating: $0) }
            try seed.save()
            return entries.map(\.objectID)
        }
        try stack.container.flush()
        let viewer = stack.container.newTaskContext(name: "viewer")
        // ids[2] is read, ids[3] read and changed (it keeps its change: not refreshed), ids[1] a
        // fault that nothing read: no values to refresh.
        let held = try viewer.performAndWait {
            let read = try viewer.existingObject(with: ids[2]) as! Entry
            _ = read.location
            let changed = try viewer.existingObject(with: ids[3]) as! Entry
            changed.height = "mine"
            return [try viewer.existingObject(with: ids[0]), viewer.object(with: ids[1]), read, changed]
        }
        let job = stack.container.newTaskContext(name: "job")
        let (deletion, update) = try job.performAndWait {
            (
                try job.execute(BatchDeleteRequest<Entry>(predicate: \.rating == 0, resultType: .objectIDs)),
                try job.execute(BatchUpdateRequest<Entry>(predicate: \.rating >= 1, set: [.set(\.location, to: "batch")], resultType: .objectIDs))
            )
        }
        let recorder = ChangeEventTests.Recorder<ObjectsDidChange>()
        let observation = viewer.observeObjectsDidChange { recorder.record($0) }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: deletion, into: [viewer])
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: update, into: [viewer])
        #expect(recorder.all.map(\.deletedObjectIDs) == [[ids[0]], []])
        #expect(recorder.all.map(\.refreshedObjectIDs) == [[], [ids[2]]])
        viewer.performAndWait {
            #expect((held[2] as! Entry).location == "batch")
            #expect((held[3] as! Entry).height == "mine")
        }
        observation.cancel()
    }
}
