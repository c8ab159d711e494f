import Foundation
@testable import LineupStore
import Testing

/// How changes move up the stack: inserts are taken by the parent as whole segments, everything
/// else row by row, and readers see every row at some level all along.
@Suite struct StackPathTests {
    /// Inserts `count` entries named `prefix-N` in a new task context, saves into main, returns
    /// their IDs.
    private func insertChunk(_ stack: TemporaryStack, _ prefix: String, count: Int) throws -> [ObjectID] {
        let child = stack.container.newTaskContext(name: prefix)
        return try child.performAndWait {
            let ids = (0..<count).map { child.insertEntry("\(prefix)-\($0)", rating: $0).objectID }
            try child.save()
            return ids
        }
    }

    private func locationsOnDisk(_ stack: TemporaryStack) throws -> [String] {
        try TemporaryStack.reopen(stack) { context in
            try context.fetch(FetchRequest<Entry>(sortedBy: [.ascending(\.location)])).map { $0.location ?? "nil" }
        }
    }

    @Test(arguments: StoreKind.allCases) func insertChunksAreTakenWholeAndReadableAtEveryLevel(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let chunks = try (0..<3).map { try insertChunk(stack, "chunk\($0)", count: 50) }
        let segments = stack.main.performAndWait { stack.main.childChanges.segments.map(\.count) }
        #expect(segments == [50, 50, 50], "one segment per child save, taken as it was pushed")

        let reader = stack.container.newTaskContext(name: "reader")
        try reader.performAndWait {
            #expect(try reader.count(for: FetchRequest<Entry>()) == 150)
            for (number, ids) in chunks.enumerated() {
                let entry = try reader.existingObject(with: ids[7]) as! Entry
                #expect(entry.location == "chunk\(number)-7")
                #expect(entry.rating == 7)
            }
            let matching = try reader.fetch(FetchRequest<Entry>(predicate: \.rating == 49))
            #expect(Set(matching.map { $0.location! }) == ["chunk0-49", "chunk1-49", "chunk2-49"])
        }

        try stack.main.performAndWait { try stack.main.save() }
        #expect(stack.main.performAndWait { stack.main.childChanges.isEmpty })
        #expect(stack.container.writerContext.performAndWait { stack.container.writerContext.childChanges.segments.count } == 3)
        #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Entry>()) } == 150, "seen in the writer")

        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 150)
        let onDisk = try locationsOnDisk(stack)
        #expect(onDisk.count == 150)
        #expect(Set(onDisk).count == 150)
    }

    @Test(arguments: StoreKind.allCases) func anUpdateOfARowStillPendingAboveIsMergedIntoItsInsert(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try insertChunk(stack, "first", count: 10)
        let editor = stack.container.newTaskContext(name: "editor")
        try editor.performAndWait {
            let entry = try editor.existingObject(with: ids[3]) as! Entry
            entry.location = "edited"
            try editor.save()
        }
        stack.main.performAndWait {
            let changes = stack.main.childChanges
            #expect(changes.count == 10, "the update replaced the insert instead of adding a row")
            #expect(changes[ids[3]]?.kind == .insert)
            #expect(changes.segments.map(\.count) == [1, 9])
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 10)
        #expect(try locationsOnDisk(stack).contains("edited"))
        #expect(try !locationsOnDisk(stack).contains("first-3"))
    }

    @Test(arguments: StoreKind.allCases) func aDeleteOfARowStillPendingAboveNeverReachesTheDisk(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let ids = try insertChunk(stack, "kept", count: 4)
        let deleter = stack.container.newTaskContext(name: "deleter")
        try deleter.performAndWait {
            deleter.delete(try deleter.existingObject(with: ids[0]))
            try deleter.save()
        }
        #expect(stack.main.performAndWait { stack.main.childChanges.count } == 3)
        try stack.container.flush()
        #expect(try locationsOnDisk(stack) == ["kept-1", "kept-2", "kept-3"])
    }

    @Test(arguments: StoreKind.allCases) func anObjectRegisteredInTheParentTakesAChildsInsert(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let child = stack.container.newTaskContext(name: "child")
        let id = child.performAndWait { child.insertEntry("early", rating: 2).objectID }
        // The main context hands out a fault for the ID before the row exists anywhere.
        let fault = stack.main.performAndWait { stack.main.object(with: id) as! Entry }
        try child.performAndWait { try child.save() }
        stack.main.performAndWait {
            #expect(fault.isInserted)
            #expect(fault.location == "early")
            #expect(stack.main.insertedObjects.map(\.objectID) == [id])
            #expect(stack.main.childChanges.isEmpty, "the row went to the object, not to a segment")
        }
        try stack.container.flush()
        #expect(try locationsOnDisk(stack) == ["early"])
        stack.main.performAndWait { #expect(!fault.hasChanges) }
    }

    @Test(arguments: StoreKind.allCases) func rowsOfSegmentsBecomeObjectsWhenAskedForAndStillReachTheDisk(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let first = try insertChunk(stack, "a", count: 3)
        _ = try insertChunk(stack, "b", count: 2)
        stack.main.performAndWait {
            let object = stack.main.object(with: first[1]) as! Entry
            #expect(object.isInserted)
            #expect(object.location == "a-1")
            #expect(stack.main.childChanges.count == 4)
            #expect(Set(stack.main.insertedObjects.map { ($0 as! Entry).location! }) == ["a-0", "a-1", "a-2", "b-0", "b-1"])
            #expect(stack.main.childChanges.isEmpty)
        }
        try stack.container.flush()
        #expect(try locationsOnDisk(stack) == ["a-0", "a-1", "a-2", "b-0", "b-1"])
    }

    @Test(arguments: StoreKind.allCases) func rollbackInTheParentDropsTheSegments(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        _ = try insertChunk(stack, "dropped", count: 5)
        stack.main.performAndWait { stack.main.rollback() }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == 0)
    }

    @Test(arguments: StoreKind.allCases) func manySavesBetweenFlushesAreCompactedAndKeepEveryRow(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let saves = ChangeSet.segmentLimit + 8
        for save in 0..<saves { _ = try insertChunk(stack, "s\(save)", count: 3) }
        let segments = stack.main.performAndWait { stack.main.childChanges.segments.count }
        #expect(segments == ChangeSet.segmentLimit)
        let reader = stack.container.newTaskContext(name: "reader")
        #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Entry>()) } == saves * 3)
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == saves * 3)
    }

    /// One context uses up its block of keys and takes a new one after another context took the
    /// block in between: the two saves' key ranges overlap, and the writer still writes each row
    /// once, in key order.
    @Test(arguments: StoreKind.allCases) func interleavedKeyBlocksAreWrittenOnce(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let long = stack.container.newTaskContext(name: "long")
        let short = stack.container.newTaskContext(name: "short")
        let block = Int(SQLiteStore.primaryKeyBlock)
        long.performAndWait { for row in 0..<block { long.insertEntry("long-\(row)") } }
        try short.performAndWait {
            short.insertEntry("short")
            try short.save()
        }
        try long.performAndWait {
            long.insertEntry("long-last")
            try long.save()
        }
        let ranges = stack.main.performAndWait {
            stack.main.childChanges.segments.map { $0.firstKey!...$0.lastKey! }
        }
        #expect(ranges.count == 2)
        #expect(ranges[0].overlaps(ranges[1]))
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Entry") == block + 2)
        if store == .sqlite { #expect(try stack.container.sqliteStore.integrityCheck() == "ok") }
    }

    /// Inserts of an entity with a uniqueness constraint are taken whole too, and still checked
    /// against every level: the main context's segments, the writer's, and the disk.
    @Test(arguments: StoreKind.allCases) func uniquenessIsCheckedAgainstSegmentsAtEveryLevel(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        func saveStation(_ stationID: String) throws {
            let child = stack.container.newTaskContext(name: "station-\(stationID)")
            try child.performAndWait {
                Station(context: child).stationID = stationID
                try child.save()
            }
        }
        try saveStation("46042")
        #expect(throws: StoreError.self) { try saveStation("46042") }
        try stack.main.performAndWait { try stack.main.save() }
        #expect(stack.container.writerContext.performAndWait { stack.container.writerContext.childChanges.count } == 1)
        #expect(throws: StoreError.self) { try saveStation("46042") }
        try saveStation("46026")
        try stack.container.flush()
        #expect(throws: StoreError.self) { try saveStation("46026") }
        #expect(try stack.rowsOnDisk("Station") == 2)
    }

    @Test(arguments: StoreKind.allCases) func objectsKeptAfterASaveStayRegisteredAndCleanAndDroppedOnesAreForgotten(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "job")
        try context.performAndWait {
            let kept = context.insertEntry("kept", rating: 1)
            let droppedID = context.insertEntry("dropped").objectID
            try context.save()
            #expect(context.registeredObject(for: kept.objectID) === kept)
            #expect(context.registeredObject(for: droppedID) == nil)
            #expect(!kept.isInserted && !kept.hasChanges)
            kept.rating = 5
            try context.save()
            #expect(kept.committedValues()["rating"] == .integer(5))
        }
        try stack.container.flush()
        let rating = try TemporaryStack.reopen(stack) { context in
            try context.fetch(FetchRequest<Entry>(predicate: \.location == "kept")).first?.rating
        }
        #expect(rating == 5)
    }

    /// What the parent's merge policy made of a pushed change comes back to the child's object.
    @Test(arguments: StoreKind.allCases, [
        (MergePolicy.mergeByPropertyObjectTrump, "mine", 2),
        (MergePolicy.rollback, "theirs", 2),
        (MergePolicy.overwrite, "mine", 0),
    ])
    func theParentsResolutionReachesTheChildsObject(
        _ store: StoreKind, expected: (policy: MergePolicy, location: String, rating: Int)
    ) throws {
        let (policy, location, rating) = expected
        let stack = try TemporaryStack(store)
        let id = try insertChunk(stack, "original", count: 1)[0]
        try stack.container.flush()
        let stale = stack.container.newTaskContext(name: "stale")
        stale.mergePolicy = policy
        let staleEntry = try stale.performAndWait { try stale.existingObject(with: id) as! Entry }
        let sibling = stack.container.newTaskContext(name: "sibling")
        try sibling.performAndWait {
            let entry = try sibling.existingObject(with: id) as! Entry
            entry.location = "theirs"
            entry.rating = 2
            try sibling.save()
        }
        let (childLocation, childRating, hasChanges) = try stale.performAndWait {
            staleEntry.location = "mine"
            try stale.save()
            return (staleEntry.location, staleEntry.rating, staleEntry.hasChanges)
        }
        #expect(childLocation == location)
        #expect(childRating == rating)
        #expect(!hasChanges)
        let mainValues = stack.main.performAndWait {
            let entry = stack.main.object(with: id) as! Entry
            return (entry.location, entry.rating)
        }
        #expect(mainValues.0 == location && mainValues.1 == rating, "the child holds what the parent holds")
        // A later save of the same object is not a conflict: it carries the parent's version.
        try stale.performAndWait {
            staleEntry.height = "3-4 ft"
            try stale.save()
        }
    }
}
