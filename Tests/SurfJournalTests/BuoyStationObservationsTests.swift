import Foundation
import LineupStore
import SurfJournal
import Testing

@Suite struct BuoyStationObservationsTests {
    @Test func aStationListsItsObservationsAndCannotBeDeletedWhileItHasAny() throws {
        let fixture = try JournalFixture()
        let context = fixture.container.newTaskContext(name: "job")
        try context.performAndWait {
            let station = BuoyStation(context: context)
            station.stationID = "46012"
            for hour in 0..<3 {
                let observation = BuoyObservation(context: context)
                observation.time = utc("2024-01-05T0\(hour):00:00Z")
                observation.station = station
            }
            try context.save()
            #expect(station.observations.count == 3)

            context.delete(station)
            let error = #expect(throws: StoreError.self) { try context.save() }
            #expect(error?.code == .deleteDenied)
            context.rollback()
            #expect(!station.isDeleted)
        }
        // Retention first (a batch delete reads the store: flushed rows), then the station may go.
        try fixture.container.flush()
        _ = try fixture.runSucceeding(#"{"kind": "prune-observations", "before": "2030-01-01T00:00:00Z", "station": "46012"}"#)
        let cleaner = fixture.container.newTaskContext(name: "cleaner")
        try cleaner.performAndWait {
            let station = try #require(try cleaner.fetch(FetchRequest<BuoyStation>(predicate: \.stationID == "46012")).first)
            #expect(station.observations.isEmpty)
            cleaner.delete(station)
            try cleaner.save()
        }
        try fixture.container.flush()
        #expect(try fixture.container.rowCount(of: "BuoyStation") == 0)
    }
}
