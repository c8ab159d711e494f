import Foundation
@testable import LineupStore
import Logging
import Testing

/// Rows looked up by natural key among the unsaved changes (``UniqueKeyIndex``): an upsert's
/// fetch, and the uniqueness check when a save is accepted, the writer's included.
@Suite struct UniqueKeyTests {
    private let station = testModel.entity(named: "Station")!
    private let reading = testModel.entity(named: "Reading")!

    private func stationRow(_ key: Int64, _ kind: RowChange.Kind, _ stationID: String?) -> (ObjectID, RowChange) {
        var values = station.defaultValues
        values[station.index(ofProperty: "stationID")!] = stationID.map { .text($0) } ?? .null
        let id = ObjectID(storeIdentifier: UUID(), entityName: "Station", primaryKey: key)
        return (id, RowChange(kind: kind, mergePolicy: nil, entity: station, values: values, changedMask: .empty, baseValues: nil, baseStamp: 0, stamp: 1))
    }

    private func holders(of stationID: StoreValue, in segment: ChangeSegment) -> [Int64] {
        var keys: [Int64] = []
        segment.forEachRow(holding: UniqueKeyIndex.Key([stationID], constraint: 0, of: station)!) { keys.append($0.id.primaryKey) }
        return keys
    }

    @Test(arguments: StoreKind.allCases) func aSegmentFindsTheRowsHoldingAKeyAndNotDeletesNullsOrRemovedRows(_ store: StoreKind) {
        var builder = ChangeSegment.Builder()
        let rows = [
            stationRow(1, .insert, "41012"), stationRow(2, .update, "42002"), stationRow(3, .delete, "46042"),
            stationRow(4, .insert, nil), stationRow(5, .insert, "46026"),
        ]
        for (id, change) in rows { builder.append(change, for: id) }
        var segment = builder.build()
        #expect(holders(of: .text("41012"), in: segment) == [1])
        #expect(holders(of: .text("42002"), in: segment) == [2])
        #expect(holders(of: .text("46042"), in: segment) == [], "a delete holds no key")
        #expect(holders(of: .text("99999"), in: segment) == [])
        #expect(UniqueKeyIndex.Key([.null], constraint: 0, of: station) == nil, "NULL is no key, as in SQL")
        segment.removeValue(forKey: rows[4].0)
        #expect(holders(of: .text("46026"), in: segment) == [], "a removed row is not found by its stale entry")
    }

    /// What lets a save skip looking each row up among its own segment's rows: whether two rows
    /// of the segment have keys with one hash (always so when two hold one key).
    @Test func aSegmentKnowsWhetherTwoOfItsRowsShareAKeyHash() {
        func segment(_ stationIDs: [String?]) -> ChangeSegment {
            var builder = ChangeSegment.Builder()
            for (offset, stationID) in stationIDs.enumerated() {
                let (id, change) = stationRow(Int64(offset + 1), .insert, stationID)
                builder.append(change, for: id)
            }
            return builder.build()
        }
        #expect(segment(["41012", "42002", "46042"]).uniqueKeys?.hasSharedHashes == false)
        #expect(segment(["41012", nil, nil]).uniqueKeys?.hasSharedHashes == false, "NULLs hold no key")
        #expect(segment(["41012", "42002", "41012"]).uniqueKeys?.hasSharedHashes == true)
    }

    @Test(arguments: StoreKind.allCases) func integersAndRealsThatSQLCallsEqualAreOneKey(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let time = Date(timeIntervalSince1970: 1_645_960_800)  // a whole second: the same as an integer
        let context = stack.container.newTaskContext(name: "readings")
        try context.performAndWait {
            let owner = Station(context: context)
            owner.stationID = "42002"
            let first = Reading(context: context)
            first.station = owner
            first.time = time
            try context.save()
            let found = try context.fetch(
                FetchRequest<Reading>(predicate: .refers(\.station, to: owner.objectID) && \.time == time))
            #expect(found.count == 1)
        }
    }

    /// A fetch that pins a whole uniqueness key looks its rows up level by level; the nearest
    /// change of a row decides whether it still holds the key.
    @Test(arguments: StoreKind.allCases) func aFetchByNaturalKeySeesTheNearestChangeOfEveryRow(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let t1 = Date(timeIntervalSince1970: 1_645_960_800)
        let t2 = t1.addingTimeInterval(600)
        func readings(at times: [Date]) throws -> [Date?] {
            let context = stack.container.newTaskContext(name: "reader")
            return try context.performAndWait {
                let owner = try context.fetch(FetchRequest<Station>(predicate: \.stationID == "42002"))[0]
                return try context.fetch(
                    FetchRequest<Reading>(predicate: .refers(\.station, to: owner.objectID) && .isIn(\.time, times.map { Optional($0) }))
                ).map(\.time)
            }
        }
        let setUp = stack.container.newTaskContext(name: "set-up")
        try setUp.performAndWait {
            Station(context: setUp).stationID = "42002"
            try setUp.save()
        }
        try stack.container.flush()
        func change(_ body: @escaping (ManagedObjectContext, Station) throws -> Void) throws {
            let context = stack.container.newTaskContext(name: "job")
            try context.performAndWait {
                let owner = try context.fetch(FetchRequest<Station>(predicate: \.stationID == "42002"))[0]
                try body(context, owner)
                try context.save()
            }
        }
        try change { context, owner in
            let reading = Reading(context: context)
            reading.station = owner
            reading.time = t1
        }
        try stack.main.performAndWait { try stack.main.save() }  // now in the writer's changes
        #expect(try readings(at: [t1]) == [t1])
        try change { context, owner in
            let reading = try context.fetch(
                FetchRequest<Reading>(predicate: .refers(\.station, to: owner.objectID) && \.time == t1))[0]
            reading.time = t2
        }
        // The main context's update hides the writer's insert: t1 is free, t2 taken.
        #expect(try readings(at: [t1]) == [])
        #expect(try readings(at: [t2]) == [t2])
        #expect(try readings(at: [t1, t2]) == [t2])
        try change { context, owner in
            let reading = try context.fetch(
                FetchRequest<Reading>(predicate: .refers(\.station, to: owner.objectID) && \.time == t2))[0]
            context.delete(reading)
        }
        #expect(try readings(at: [t1, t2]) == [])
        try stack.container.flush()
        #expect(try readings(at: [t1, t2]) == [])
        #expect(try stack.rowsOnDisk("Reading") == 0)
    }

    /// The main context's own rows were never checked on their way in: the writer compares them
    /// with the jobs' rows that travel with them.
    @Test(arguments: StoreKind.allCases) func aRowMadeInTheMainContextThatDuplicatesAJobsRowFailsTheFlush(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let job = stack.container.newTaskContext(name: "job")
        let jobStationID = try job.performAndWait {
            let station = Station(context: job)
            station.stationID = "41012"
            try job.save()
            return station.objectID
        }
        let mainStationID = stack.main.performAndWait {
            let station = Station(context: stack.main)
            station.stationID = "41012"
            return station.objectID
        }
        let error = #expect(throws: StoreError.self) { try stack.container.flush() }
        #expect(error?.code == .mergeConflict)
        let conflict = try #require(error?.conflicts.first)
        #expect(conflict.objectID == mainStationID)
        if case let .uniqueness(properties, existing) = conflict.reason {
            #expect(properties == ["stationID"])
            #expect(existing == jobStationID)
        } else {
            Issue.record("expected a uniqueness conflict, got \(conflict.reason)")
        }
        #expect(try stack.rowsOnDisk("Station") == 0)
    }

    /// The writer leaves the comparison with the disk to SQLite's unique index, and still names
    /// the rows when the index refuses one.
    @Test(arguments: StoreKind.allCases) func aDuplicateOfARowOnDiskThatReachesTheWriterIsReportedWithItsRows(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let job = stack.container.newTaskContext(name: "job")
        let onDisk = try job.performAndWait {
            let station = Station(context: job)
            station.stationID = "46042"
            try job.save()
            return station.objectID
        }
        try stack.container.flush()
        let duplicate = stack.main.performAndWait {
            let station = Station(context: stack.main)
            station.stationID = "46042"
            return station.objectID
        }
        let error = #expect(throws: StoreError.self) { try stack.container.flush() }
        #expect(error?.code == .mergeConflict)
        let conflict = try #require(error?.conflicts.first)
        #expect(conflict.objectID == duplicate)
        if case let .uniqueness(_, existing) = conflict.reason {
            #expect(existing == onDisk)
        } else {
            Issue.record("expected a uniqueness conflict, got \(conflict.reason)")
        }
        #expect(try stack.rowsOnDisk("Station") == 1)
        if store == .sqlite { #expect(try stack.container.sqliteStore.integrityCheck() == "ok") }
    }

    // MARK: - A constraint added to an existing store

    /// Opens the store at `url` with the entity `Entry` of `type` (one `location` property).
    private func open(_ url: URL, _ type: ManagedObject.Type) throws -> PersistentContainer {
        try openStack(at: url, model: ManagedObjectModel(types: [type]))
    }

    /// A store with one `Entry` per location, written without a uniqueness constraint.
    private func storeWithoutTheConstraint(
        _ store: StoreKind, _ locations: [String?]
    ) throws -> (place: TemporaryStoreURL, keys: [Int64]) {
        let place = try TemporaryStoreURL(store)
        let container = try open(place.url, EntryV1.self)
        let context = container.newTaskContext(name: "before")
        let keys = try context.performAndWait {
            let entries = locations.map { location in
                let entry = EntryV1(context: context)
                entry.location = location
                return entry
            }
            try context.save()
            return entries.map(\.objectID.primaryKey)
        }
        try container.flush()
        try container.close()
        return (place, keys)
    }

    @Test(arguments: StoreKind.allCases) func aConstraintThatExistingRowsBreakIsRefusedNamingTheStoreAndTheRows(_ store: StoreKind) throws {
        let (place, keys) = try storeWithoutTheConstraint(store, ["Malibu", "Rincon", "Malibu", nil, nil, "Rincon", "Malibu"])
        defer { extendLifetime(place) }
        let url = place.url
        let error = #expect(throws: StoreError.self) { try open(url, EntryUniqueLocation.self) }
        #expect(error?.code == .migrationUnsupported)
        let message = error?.message ?? ""
        #expect(message.contains(place.location))
        #expect(message.contains("Entry(location)"))
        #expect(message.contains("2 key(s)"), "two locations are duplicated; the NULLs hold no key: \(message)")
        #expect(message.contains("pk \(keys[0]), \(keys[2]), \(keys[6]); pk \(keys[1]), \(keys[5])"), "\(message)")
        // Nothing changed: the store opens as before, with every row.
        let before = try open(url, EntryV1.self)
        #expect(try before.rowCount(of: "Entry") == 7)
        try before.close()
    }

    @Test(arguments: StoreKind.allCases) func aConstraintThatExistingRowsKeepIsAddedInPlaceAndHoldsFromThenOn(_ store: StoreKind) throws {
        let (place, _) = try storeWithoutTheConstraint(store, ["Malibu", "Rincon", nil, nil])
        defer { extendLifetime(place) }
        let container = try open(place.url, EntryUniqueLocation.self)
        defer { try? container.close() }
        #expect(try container.rowCount(of: "Entry") == 4)
        let context = container.newTaskContext(name: "after")
        let error = #expect(throws: StoreError.self) {
            try context.performAndWait {
                EntryUniqueLocation(context: context).location = "Malibu"
                try context.save()
            }
        }
        #expect(error?.code == .mergeConflict)
    }
}

/// `Entry` (see `EntryV1`) once its location became unique.
final class EntryUniqueLocation: ManagedObject {
    override class var entityName: String { "Entry" }
    @Attribute("location") var location: String?
    override class var uniquenessConstraints: [[String]] { [["location"]] }
}
