import BuoyXML
import Foundation
import LineupStore
@testable import SurfJournal
import Testing
import LineupTestSupport

/// Two imports of overlapping observations at once: found by the crash soak, where imports of
/// overlapping SOS documents failed each other's attempts with version conflicts until one ran
/// out of attempts.
@Suite struct ConcurrentBuoyImportTests {
    /// `count` observations of one station from `seed`: two seeds give the same keys with
    /// different values.
    private func records(seed: UInt64, count: Int = 20) -> [BuoyObservationRecord] {
        SampleObservations(seed: seed, count: count, stations: 1).map { record in
            var record = record
            record.stationID = "CB01"
            return record
        }
    }

    private func upsert(_ records: [BuoyObservationRecord], in context: ManagedObjectContext) throws {
        try context.performAndWait {
            let upserter = BuoyUpserter(context: context, chunkSize: 1_000, checkCancellation: {}, afterChunk: { _ in })
            for record in records { try upserter.add(record) }
            try upserter.finish()
        }
    }

    @Test func aLaterImportOfTheSameObservationsWinsInsteadOfConflicting() throws {
        let fixture = try JournalFixture()
        try upsert(records(seed: 1), in: fixture.container.newTaskContext(name: "first import"))
        try fixture.container.flush()

        // Both load the stored observations, then save one after the other: the second is based
        // on versions the first replaced.
        let second = fixture.container.newTaskContext(name: "second")
        let third = fixture.container.newTaskContext(name: "third")
        let (secondRecords, thirdRecords) = (records(seed: 2), records(seed: 3))
        let loadedBySecond = try second.performAndWait { try second.fetch(FetchRequest<BuoyObservation>()) }
        let loadedByThird = try third.performAndWait { try third.fetch(FetchRequest<BuoyObservation>()) }
        try withExtendedLifetime((loadedBySecond, loadedByThird)) {
            try upsert(secondRecords, in: second)
            try upsert(thirdRecords, in: third)
        }
        try fixture.container.flush()

        let reader = fixture.container.newTaskContext(name: "read")
        let stored = try reader.performAndWait {
            try reader.fetch(FetchRequest<BuoyObservation>(sortedBy: [.ascending(\.time)])).map(\.waveHeight)
        }
        #expect(stored == thirdRecords.sorted { $0.time < $1.time }.map(\.waveHeight))
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 20)
    }
}
