import Foundation
import LineupStore
import Testing

/// Two writers of one store, as two daemons on one PostgreSQL database, or two programs on one
/// SQLite file: each has its own stack, and neither context of one sees what the other holds.
/// A task context of the first loads a row; the second writes a newer version of it to the store;
/// then the first's flush meets that version at the store. The conflict is settled there by the
/// merge policy of the task context that made the change, not by the writer's (`.error`), as
/// Core Data's coordinator settles it by the saving context's policy: under every policy but
/// `.error` the flush goes through.
@Suite struct StoreConflictTests {
    struct Outcome {
        let location: String?
        let rating: Int?
        let height: String?
        let error: (any Error)?
    }

    /// Row on disk: location "original", rating 1. This stack's task context sets location and
    /// height "mine" and saves into its main context; the other stack sets location "theirs" and
    /// rating 2 and flushes first; then this stack flushes.
    private func race(_ store: StoreKind, policy: MergePolicy) throws -> Outcome {
        let place = try TemporaryStoreURL(store)
        let this = try place.open()
        defer { try? this.close() }
        let seed = this.newTaskContext(name: "seed")
        let id = try seed.performAndWait {
            let entry = seed.insertEntry("original", rating: 1)
            try seed.save()
            return entry.objectID
        }
        try this.flush()
        let task = this.newTaskContext(name: "this daemon's task")
        task.mergePolicy = policy
        #expect(this.writerContext.mergePolicy == .error, "the writer keeps the default")
        try task.performAndWait {
            let entry = try task.existingObject(with: id) as! Entry
            entry.location = "mine"
            entry.height = "mine"
            try task.save()
        }

        try asAnotherWriter(of: place) { context in
            let entry = try context.existingObject(with: id) as! Entry
            entry.location = "theirs"
            entry.rating = 2
        }

        var failure: (any Error)?
        do { try this.flush() } catch { failure = error }
        return try read(place) { context in
            let entry = try context.existingObject(with: id) as! Entry
            return Outcome(location: entry.location, rating: entry.rating, height: entry.height, error: failure)
        }
    }

    /// What another writer of the store does: with a stack of its own, `change` in a task
    /// context, saved and flushed.
    @discardableResult
    private func asAnotherWriter<Result>(of place: TemporaryStoreURL, _ change: (ManagedObjectContext) throws -> Result) throws -> Result {
        let other = try place.open()
        defer { try? other.close() }
        let task = other.newTaskContext(name: "the other writer's task")
        let result = try task.performAndWait {
            let result = try change(task)
            try task.save()
            return result
        }
        try other.flush()
        return result
    }

    /// Reads the store with a stack of its own.
    private func read<Result>(_ place: TemporaryStoreURL, _ body: (ManagedObjectContext) throws -> Result) throws -> Result {
        let reader = try place.open()
        defer { try? reader.close() }
        let context = reader.newTaskContext(name: "reader")
        return try context.performAndWait { try body(context) }
    }

    @Test(arguments: StoreKind.allCases) func errorFailsTheFlushListingTheObjectAndWritesNothingOfIt(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .error)
        let error = try #require(outcome.error as? StoreError)
        #expect(error.code == .mergeConflict)
        #expect(error.conflicts.count == 1)
        #expect(Set(error.conflicts.first?.changedProperties ?? []) == ["location", "height"])
        if case .newerVersion? = error.conflicts.first?.reason {} else { Issue.record("unexpected conflict \(error)") }
        #expect(outcome.location == "theirs" && outcome.rating == 2 && outcome.height == nil)
    }

    @Test(arguments: StoreKind.allCases) func mergeByPropertyObjectTrumpMergesPropertyByPropertyTheTasksWinning(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .mergeByPropertyObjectTrump)
        #expect(outcome.error == nil)
        #expect(outcome.location == "mine" && outcome.height == "mine")
        #expect(outcome.rating == 2, "the other daemon's change of a property the task left alone is kept")
    }

    @Test(arguments: StoreKind.allCases) func mergeByPropertyStoreTrumpKeepsTheStoresValueWhereBothChanged(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .mergeByPropertyStoreTrump)
        #expect(outcome.error == nil)
        #expect(outcome.location == "theirs")
        #expect(outcome.height == "mine", "the task's change of a property the other daemon left alone is kept")
        #expect(outcome.rating == 2)
    }

    @Test(arguments: StoreKind.allCases) func overwriteWritesTheTasksWholeObject(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .overwrite)
        #expect(outcome.error == nil)
        #expect(outcome.location == "mine" && outcome.height == "mine")
        #expect(outcome.rating == 1, "the task's unchanged rating overwrites the other daemon's")
    }

    @Test(arguments: StoreKind.allCases) func rollbackKeepsTheStoresRow(_ store: StoreKind) throws {
        let outcome = try race(store, policy: .rollback)
        #expect(outcome.error == nil)
        #expect(outcome.location == "theirs" && outcome.rating == 2 && outcome.height == nil)
    }

    /// Both stacks insert the same natural key: the second flush meets the store's unique index,
    /// and the inserting context's policy merges its row into the one stored. PostgreSQL only:
    /// two programs that insert into one SQLite file would take the same primary keys (each
    /// stack hands out keys from its own counter: the SQLite store has one writer).
    @Test(.enabled(if: StoreKind.allCases.contains(.postgres)))
    func aKeyInsertedByBothIsMergedByTheInsertingContextsPolicy() throws {
        let place = try TemporaryStoreURL(.postgres)
        let this = try place.open()
        defer { try? this.close() }
        let task = this.newTaskContext(name: "this daemon's task")
        task.mergePolicy = .mergeByPropertyObjectTrump
        try task.performAndWait {
            let station = Station(context: task)
            station.stationID = "42002"
            station.name = "mine"
            try task.save()
        }
        try asAnotherWriter(of: place) { context in Station(context: context).stationID = "42002" }

        try this.flush()
        #expect(try this.rowCount(of: "Station") == 1)
        let names = try read(place) { context in try context.fetch(FetchRequest<Station>()).map(\.name) }
        #expect(names == ["mine"])
    }

    /// A station inserted here waits in the writer for its write, where a second task's fetch
    /// finds it and points a reading at it; meanwhile the other stack stores the same station.
    /// The write merges this one into the other's row; the reading, saved after that write, is
    /// pointed at the row that holds the station, not at the dropped insert. PostgreSQL only (see
    /// above).
    @Test(.enabled(if: StoreKind.allCases.contains(.postgres)))
    func aLaterSavePointingAtAMergedInsertPointsAtTheRowItWasMergedInto() throws {
        let place = try TemporaryStoreURL(.postgres)
        let this = try place.open()
        defer { try? this.close() }
        let first = this.newTaskContext(name: "first task")
        first.mergePolicy = .mergeByPropertyObjectTrump
        try first.performAndWait {
            Station(context: first).stationID = "42002"
            try first.save()
        }
        // What a flush's first step does: the insert is in the writer, not written yet.
        try this.mainContext.performAndWait { try this.mainContext.save() }
        let second = this.newTaskContext(name: "second task")
        second.mergePolicy = .mergeByPropertyObjectTrump
        let pending = try second.performAndWait {
            try #require(try second.fetch(FetchRequest<Station>(predicate: \.stationID == "42002")).first)
        }

        let held = try asAnotherWriter(of: place) { context in
            let station = Station(context: context)
            station.stationID = "42002"
            return station.objectID
        }

        // The flush's second step: the store's unique index has the insert merged into `held`.
        try this.flush()
        try second.performAndWait {
            let reading = Reading(context: second)
            reading.station = pending
            reading.time = Date(timeIntervalSince1970: 1_700_000_000)
            try second.save()
        }
        try this.flush()

        let stations = try read(place) { context in try context.fetch(FetchRequest<Reading>()).map { $0.station?.objectID } }
        #expect(stations == [held], "the reading points at the stored station")
        #expect(try this.rowCount(of: "Station") == 1)
    }
}

