import Foundation
import LineupStore
import Testing

/// A child that loaded a row at one version saves after a sibling saved a newer version of it.
@Suite struct ConflictTests {
    struct Outcome {
        let location: String?
        let rating: Int?
        let error: StoreError?
    }

    /// Row on disk: location "original", rating 1. The sibling sets location "theirs" and rating 2
    /// and saves first; then the stale child sets location "mine" (and height "mine") and saves.
    private func race(_ store: StoreKind, policy: MergePolicy) throws -> Outcome {
        let stack = try TemporaryStack(store)
        let seed = stack.container.newTaskContext(name: "seed")
        let id = try seed.performAndWait {
            let entry = seed.insertEntry("original", rating: 1)
            try seed.save()
            return entry.objectID
        }
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
        var error: StoreError?
        stale.performAndWait {
            staleEntry.location = "mine"
            staleEntry.height = "mine"
            do { try stale.save() } catch let caught as StoreError { error = caught } catch {}
        }
        try stack.container.flush()
        let (location, rating) = try TemporaryStack.reopen(stack) { context in
            let entry = try context.existingObject(with: id) as! Entry
            return (entry.location, entry.rating)
        }
        return Outcome(location: location, rating: rating, error: error)
    }

    @Test(arguments: StoreKind.allCases) func errorPolicyThrowsAConflictListingTheObjects(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .error)
        let error = try #require(outcome.error)
        #expect(error.code == .mergeConflict)
        #expect(error.conflicts.count == 1)
        #expect(Set(error.conflicts[0].changedProperties) == ["location", "height"])
        if case .newerVersion = error.conflicts[0].reason {} else { Issue.record("unexpected reason \(error.conflicts[0].reason)") }
        #expect(outcome.location == "theirs" && outcome.rating == 2, "nothing of the failed save is stored")
    }

    @Test(arguments: StoreKind.allCases) func mergeByPropertyObjectTrumpKeepsTheObjectsChangesAndTheirOtherChanges(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .mergeByPropertyObjectTrump)
        #expect(outcome.error == nil)
        #expect(outcome.location == "mine")
        #expect(outcome.rating == 2)
    }

    @Test(arguments: StoreKind.allCases) func mergeByPropertyStoreTrumpKeepsTheirValueWhereBothChanged(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .mergeByPropertyStoreTrump)
        #expect(outcome.error == nil)
        #expect(outcome.location == "theirs")
        #expect(outcome.rating == 2)
    }

    @Test(arguments: StoreKind.allCases) func overwriteWritesTheWholeObject(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .overwrite)
        #expect(outcome.error == nil)
        #expect(outcome.location == "mine")
        #expect(outcome.rating == 1, "the stale object's unchanged rating overwrites theirs")
    }

    @Test(arguments: StoreKind.allCases) func rollbackDiscardsTheObjectsChanges(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .rollback)
        #expect(outcome.error == nil)
        #expect(outcome.location == "theirs")
        #expect(outcome.rating == 2)
    }

    @Test(arguments: StoreKind.allCases) func childrenInheritTheParentsPolicy(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        stack.main.mergePolicy = .mergeByPropertyObjectTrump
        let child = stack.container.newTaskContext(name: "child")
        #expect(child.mergePolicy == .mergeByPropertyObjectTrump)
        child.mergePolicy = .rollback
        #expect(child.mergePolicy == .rollback)
        #expect(stack.container.writerContext.mergePolicy == .error)
    }

    @Test(arguments: StoreKind.allCases) func uniquenessConstraintConflictIsRefusedAtTheParent(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let first = stack.container.newTaskContext(name: "first")
        let second = stack.container.newTaskContext(name: "second")
        try first.performAndWait {
            Station(context: first).stationID = "42002"
            try first.save()
        }
        second.performAndWait {
            Station(context: second).stationID = "42002"
            let error = #expect(throws: StoreError.self) { try second.save() }
            #expect(error?.code == .mergeConflict)
            if case .uniqueness(let properties, _)? = error?.conflicts.first?.reason {
                #expect(properties == ["stationID"])
            } else {
                Issue.record("expected a uniqueness conflict, got \(String(describing: error))")
            }
        }
        try stack.container.flush()
        // Also against rows already on disk.
        let third = stack.container.newTaskContext(name: "third")
        third.performAndWait {
            Station(context: third).stationID = "42002"
            #expect(throws: StoreError.self) { try third.save() }
        }
        #expect(try stack.rowsOnDisk("Station") == 1)
    }

    /// The rows of one save are checked against each other too: a context that inserts one key
    /// twice cannot save either row, and the later insert is the one named.
    @Test(arguments: StoreKind.allCases) func twoRowsOfOneSaveWithOneKeyAreRefusedAtTheParent(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let context = stack.container.newTaskContext(name: "twice")
        try context.performAndWait {
            let first = Station(context: context)
            first.stationID = "41012"
            Station(context: context).stationID = "42002"
            let duplicate = Station(context: context)
            duplicate.stationID = "41012"
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.code == .mergeConflict)
            #expect(error?.conflicts.count == 1)
            #expect(error?.conflicts.first?.objectID == duplicate.objectID)
            if case .uniqueness(let properties, let existing)? = error?.conflicts.first?.reason {
                #expect(properties == ["stationID"])
                #expect(existing == first.objectID)
            } else {
                Issue.record("expected a uniqueness conflict, got \(String(describing: error))")
            }
            // Without the duplicate, the rest saves.
            context.delete(duplicate)
            try context.save()
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Station") == 2)
    }
}
