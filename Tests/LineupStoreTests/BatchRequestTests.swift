import Foundation
import LineupStore
import Testing

/// Batch delete and batch update, as Core Data's `NSBatchDeleteRequest` and
/// `NSBatchUpdateRequest` run them (in SQL, without loading objects), and how contexts take them.
@Suite struct BatchRequestTests {
    /// Entries rated 0 to `count - 1`, saved and flushed; their IDs in rating order.
    private func seed(_ stack: TemporaryStack, count: Int) throws -> [ObjectID] {
        let seed = stack.container.newTaskContext(name: "seed")
        let ids = try seed.performAndWait {
            let entries = (0..<count).map { seed.insertEntry("spot", rating: $0) }
            try seed.save()
            return entries.map(\.objectID)
        }
        try stack.container.flush()
        return ids
    }

    private func ratingsOnDisk(_ stack: TemporaryStack) throws -> [Int] {
        let reader = stack.container.newTaskContext(name: "disk")
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<Entry>(sortedBy: [.ascending(\.rating)], includesPendingChanges: false))
                .map { $0.rating ?? -1 }
        }
    }

    @Test(arguments: StoreKind.allCases) func aBatchDeleteDeletesTheMatchingRowsWithoutLoadingThem(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try seed(stack, count: 10)
        let job = stack.container.newTaskContext(name: "prune")
        let result = try job.performAndWait {
            let result = try job.execute(BatchDeleteRequest<Entry>(predicate: \.rating < 4, resultType: .objectIDs))
            #expect(job.registeredObjects.isEmpty, "no object was loaded")
            #expect(!job.hasChanges, "the delete is in the store, not a change to save")
            return result
        }
        #expect(result.count == 4)
        #expect(result.deletedObjectIDs == Array(ids[0..<4]))
        #expect(result.updatedObjectIDs.isEmpty)
        #expect(try ratingsOnDisk(stack) == Array(4..<10))

        let countOnly = try job.performAndWait { try job.execute(BatchDeleteRequest<Entry>(predicate: \.rating >= 8)) }
        #expect(countOnly.count == 2)
        #expect(countOnly.deletedObjectIDs.isEmpty, "IDs only when asked for")
        #expect(try ratingsOnDisk(stack) == Array(4..<8))
    }

    /// Core Data leaves every context showing deleted rows until merged; here the contexts the
    /// request runs through take it at once, so that no flush pushes a change over a gone row.
    @Test(arguments: StoreKind.allCases) func theContextsUpToTheWriterTakeABatchDeleteBeforeItReturns(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try seed(stack, count: 6)
        // The main context holds an object of a doomed row, and a job's unsaved update of another
        // (saved into it, not flushed), which would fail the next flush over a gone row.
        let shown = try stack.main.performAndWait { try stack.main.existingObject(with: ids[0]) as! Entry }
        let job = stack.container.newTaskContext(name: "job")
        try job.performAndWait {
            (try job.existingObject(with: ids[1]) as! Entry).location = "updated, not flushed"
            (try job.existingObject(with: ids[5]) as! Entry).location = "kept, not flushed"
            try job.save()
        }

        let pruner = stack.container.newTaskContext(name: "prune")
        let own = try pruner.performAndWait {
            let own = try pruner.existingObject(with: ids[2]) as! Entry
            #expect(try pruner.execute(BatchDeleteRequest<Entry>(predicate: \.rating < 3)).count == 3)
            #expect(own.isDeleted)
            return own
        }
        _ = own
        stack.main.performAndWait {
            #expect(shown.isDeleted)
            #expect(shown.rating == 0, "its last values stay readable")
        }
        try stack.container.flush()
        #expect(try ratingsOnDisk(stack) == [3, 4, 5])
        let location = try stack.main.performAndWait { (try stack.main.existingObject(with: ids[5]) as! Entry).location }
        #expect(location == "kept, not flushed")
    }

    @Test(arguments: StoreKind.allCases) func otherContextsMergeTheIDsOfTheResult(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try seed(stack, count: 4)
        let viewer = stack.container.newTaskContext(name: "viewer")
        let (deleted, updated) = try viewer.performAndWait {
            (try viewer.existingObject(with: ids[0]) as! Entry, try viewer.existingObject(with: ids[3]) as! Entry)
        }
        let job = stack.container.newTaskContext(name: "job")
        let (deletion, update) = try job.performAndWait {
            (
                try job.execute(BatchDeleteRequest<Entry>(predicate: \.rating == 0, resultType: .objectIDs)),
                try job.execute(
                    BatchUpdateRequest<Entry>(predicate: \.rating == 3, set: [.set(\.location, to: "batch")], resultType: .objectIDs))
            )
        }
        #expect(update.updatedObjectIDs == [ids[3]])
        viewer.performAndWait {
            #expect(!deleted.isDeleted && updated.location == "spot", "nothing reaches a context unasked")
        }

        ManagedObjectContext.mergeChanges(fromRemoteContextSave: deletion, into: [viewer])
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: update, into: [viewer])

        viewer.performAndWait {
            #expect(deleted.isDeleted)
            #expect(viewer.deletedObjects.map(\.objectID) == [ids[0]])
            #expect(updated.location == "batch")
        }
    }

    @Test(arguments: StoreKind.allCases) func aBatchUpdateSetsPropertiesAndGivesTheRowsANewVersion(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try seed(stack, count: 5)
        // An unsaved change based on the old version, in a context that does not take the batch.
        let bystander = stack.container.newTaskContext(name: "bystander")
        try bystander.performAndWait { (try bystander.existingObject(with: ids[4]) as! Entry).location = "mine" }
        // The main context holds a clean object and an object with an unsaved change.
        let (clean, changed) = try stack.main.performAndWait {
            let clean = try stack.main.existingObject(with: ids[3]) as! Entry
            let changed = try stack.main.existingObject(with: ids[4]) as! Entry
            changed.height = "2 ft"
            return (clean, changed)
        }

        let job = stack.container.newTaskContext(name: "job")
        let result = try job.performAndWait {
            try job.execute(BatchUpdateRequest<Entry>(predicate: \.rating >= 3, set: [.set(\.location, to: "reef"), .set(\.score, to: 1.5)]))
        }
        #expect(result.count == 2)

        stack.main.performAndWait {
            #expect(clean.location == "reef" && clean.score == 1.5)
            #expect(changed.location == "reef" && changed.height == "2 ft", "its own change stays on top")
        }
        // Based on the new version: the flush is no conflict.
        try stack.container.flush()
        let stored = try stack.main.performAndWait {
            let entry = try stack.main.existingObject(with: ids[4]) as! Entry
            return (entry.location, entry.height, entry.score)
        }
        #expect(stored.0 == "reef" && stored.1 == "2 ft" && stored.2 == 1.5)

        // The bystander's change is based on the version the batch replaced: a conflict, as after
        // any other save of the row.
        let error = try bystander.performAndWait { () -> StoreError? in
            do {
                try bystander.save()
                return nil
            } catch let error as StoreError {
                return error
            }
        }
        #expect(error?.code == .mergeConflict)
    }

    @Test(arguments: StoreKind.allCases) func aBatchUpdateThatBreaksAUniquenessConstraintChangesNothing(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        try seed.performAndWait {
            for id in ["41001", "41002"] {
                let station = Station(context: seed)
                station.stationID = id
            }
            try seed.save()
        }
        try stack.container.flush()
        let job = stack.container.newTaskContext(name: "job")
        #expect(throws: StoreError.self) {
            try job.performAndWait {
                try job.execute(BatchUpdateRequest<Station>(predicate: .all, set: [.set(\.stationID, to: "same")]))
            }
        }
        let stationIDs = try job.performAndWait {
            try job.fetch(FetchRequest<Station>(sortedBy: [.ascending(\.stationID)])).map { $0.stationID ?? "" }
        }
        #expect(stationIDs == ["41001", "41002"])
    }
}
