import Foundation
import LineupStore
import Testing

/// Uniqueness conflicts settled by the saving context's merge policy, as Core Data's
/// `NSMergePolicy.resolve(constraintConflicts:)` settles them: an inserted object that claims a
/// key another row holds is merged into that row (which keeps its identity), the rows that point
/// at it follow, and only `.error` reports the conflict.
@Suite struct ConstraintConflictTests {
    static let policies: [MergePolicy] = [.mergeByPropertyObjectTrump, .overwrite, .mergeByPropertyStoreTrump, .rollback]
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    private let t1 = Date(timeIntervalSince1970: 1_700_003_600)

    /// Two stations named "old", the first with a reading at `t1` of 1 m, on disk.
    private func seed(_ stack: TemporaryStack) throws -> (first: ObjectID, second: ObjectID, reading: ObjectID) {
        let seed = stack.container.newTaskContext(name: "seed")
        let ids = try seed.performAndWait {
            let first = Station(context: seed)
            first.stationID = "42002"
            first.name = "old"
            let second = Station(context: seed)
            second.stationID = "46042"
            second.name = "old"
            let reading = Reading(context: seed)
            reading.station = first
            reading.time = t1
            reading.waveHeight = 1
            try seed.save()
            return (first.objectID, second.objectID, reading.objectID)
        }
        try stack.container.flush()
        return ids
    }

    /// What is on disk: station names (`-` for none) by station ID, and the readings (station
    /// key, time, height).
    private func onDisk(_ stack: TemporaryStack) throws -> (stations: [String: String], readings: [(Int64, Date, Double?)]) {
        let reader = stack.container.newTaskContext(name: "disk")
        return try reader.performAndWait {
            let stations = try reader.fetch(FetchRequest<Station>(includesPendingChanges: false))
            let readings = try reader.fetch(FetchRequest<Reading>(sortedBy: [.ascending(\.time)], includesPendingChanges: false))
            return (
                Dictionary(uniqueKeysWithValues: stations.map { ($0.stationID!, $0.name ?? "-") }),
                readings.map { ($0.station!.objectID.primaryKey, $0.time!, $0.waveHeight) }
            )
        }
    }

    @Test(arguments: StoreKind.allCases, Self.policies)
    func anInsertThatClaimsAKeyOnDiskIsMergedIntoItsRowByThePolicy(_ store: StoreKind, _ policy: MergePolicy) throws {
        let stack = try TemporaryStack(store)
        let existing = try seed(stack)
        let job = stack.container.newTaskContext(name: "job")
        job.mergePolicy = policy
        let objectWins = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        try job.performAndWait {
            let first = Station(context: job)
            first.stationID = "42002"
            first.name = "new"
            let second = Station(context: job)
            second.stationID = "46042"  // no name: only `.overwrite` takes its nil
            let fresh = Reading(context: job)
            fresh.station = first
            fresh.time = t0
            fresh.waveHeight = 3
            let again = Reading(context: job)  // (42002, t1) once it follows its station
            again.station = first
            again.time = t1
            again.waveHeight = 2
            try job.save()
            // The saving context's objects take what was stored: the duplicates are gone, and
            // the reading kept points at the existing station.
            #expect(!first.isInserted && !second.isInserted && !again.isInserted)
            #expect(fresh.station?.objectID == existing.first)
        }
        try stack.container.flush()
        let disk = try onDisk(stack)
        #expect(disk.stations.count == 2)
        #expect(disk.stations["42002"] == (objectWins ? "new" : "old"))
        #expect(disk.stations["46042"] == (policy == .overwrite ? "-" : "old"))
        #expect(disk.readings.map(\.0) == [existing.first.primaryKey, existing.first.primaryKey])
        #expect(disk.readings.map(\.1) == [t0, t1])
        #expect(disk.readings.map(\.2) == [3, objectWins ? 2 : 1])
    }

    /// The row holding the key is another job's, saved into the main context and not yet flushed.
    @Test(arguments: StoreKind.allCases) func anInsertThatClaimsAKeyAnotherJobSavedJoinsItsRow(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let first = stack.container.newTaskContext(name: "first")
        let second = stack.container.newTaskContext(name: "second")
        second.mergePolicy = .mergeByPropertyObjectTrump
        let held = try first.performAndWait {
            let station = Station(context: first)
            station.stationID = "42002"
            let reading = Reading(context: first)
            reading.station = station
            reading.time = t0
            try first.save()
            return station.objectID
        }
        try second.performAndWait {
            let station = Station(context: second)
            station.stationID = "42002"
            station.name = "second's"
            let same = Reading(context: second)
            same.station = station
            same.time = t0
            same.waveHeight = 2
            let other = Reading(context: second)
            other.station = station
            other.time = t1
            try second.save()
            #expect(other.station?.objectID == held)
        }
        try stack.container.flush()
        let disk = try onDisk(stack)
        #expect(disk.stations == ["42002": "second's"])
        #expect(disk.readings.map(\.0) == [held.primaryKey, held.primaryKey])
        #expect(disk.readings.map(\.2) == [2, nil])
    }

    /// Two inserts of one save with the same key are one row.
    @Test(arguments: StoreKind.allCases) func twoInsertsOfOneSaveWithOneKeyAreOneRow(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let job = stack.container.newTaskContext(name: "job")
        job.mergePolicy = .mergeByPropertyObjectTrump
        try job.performAndWait {
            for name in ["a", "b"] {
                let station = Station(context: job)
                station.stationID = "42002"
                station.name = name
            }
            try job.save()
        }
        try stack.container.flush()
        #expect(try stack.rowsOnDisk("Station") == 1)
    }

    /// The writer leaves the disk's keys to the store's unique index: when it refuses the flush
    /// (a row of another writer of the database, or of the main context's own), the writer's
    /// policy settles it and the flush writes again.
    @Test(arguments: StoreKind.allCases) func theFlushSettlesADuplicateTheStoreRefusesByTheWritersPolicy(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let existing = try seed(stack)
        stack.container.writerContext.mergePolicy = .mergeByPropertyObjectTrump
        stack.main.performAndWait {
            let station = Station(context: stack.main)
            station.stationID = "42002"
            station.name = "main's"
            let reading = Reading(context: stack.main)
            reading.station = station
            reading.time = t0
        }
        try stack.container.flush()
        let disk = try onDisk(stack)
        #expect(disk.stations == ["42002": "main's", "46042": "old"])
        #expect(disk.readings.map(\.0) == [existing.first.primaryKey, existing.first.primaryKey])
        if store == .sqlite { #expect(try stack.container.sqliteStore.integrityCheck() == "ok") }
    }

    @Test(arguments: StoreKind.allCases) func anUpdateThatClaimsATakenKeyIsDropped(_ store: StoreKind) throws {
        let stack = try TemporaryStack(store)
        let existing = try seed(stack)
        let job = stack.container.newTaskContext(name: "job")
        job.mergePolicy = .mergeByPropertyObjectTrump
        try job.performAndWait {
            let second = try job.existingObject(with: existing.second) as! Station
            second.stationID = "42002"
            try job.save()
            #expect(second.stationID == "46042", "it keeps the row it had")
        }
        try stack.container.flush()
        #expect(try onDisk(stack).stations == ["42002": "old", "46042": "old"])
    }
}
