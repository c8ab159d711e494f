import Foundation
import LineupJobs
import LineupStore
import SurfJournal
import Testing

@Suite struct PruneObservationsTaskTests {
    /// Two stations, each with observations at `times`, flushed to disk.
    private func seeded(times: [Date]) throws -> JournalFixture {
        let fixture = try JournalFixture()
        let context = fixture.container.newTaskContext(name: "seed")
        try context.performAndWait {
            for stationID in ["46012", "46026"] {
                let station = BuoyStation(context: context)
                station.stationID = stationID
                for time in times {
                    let observation = BuoyObservation(context: context)
                    observation.station = station
                    observation.time = time
                    observation.waveHeight = 1
                }
            }
            try context.save()
        }
        try fixture.container.flush()
        return fixture
    }

    /// The observations on disk, as "station time" lines, sorted.
    private func observationsOnDisk(_ fixture: JournalFixture) throws -> [String] {
        let context = fixture.container.newTaskContext(name: "check")
        return try context.performAndWait {
            try context.fetch(FetchRequest<BuoyObservation>(includesPendingChanges: false)).map {
                "\($0.station?.stationID ?? "?") \($0.time!.ISO8601Format())"
            }.sorted()
        }
    }

    private let times = ["2023-12-31T23:00:00Z", "2024-01-01T00:00:00Z", "2024-06-01T12:00:00Z"].map(utc)

    @Test func deletesEveryStationsObservationsBeforeTheDate() throws {
        let fixture = try seeded(times: times)
        let outcome = try fixture.runSucceeding(#"{"kind": "prune-observations", "before": "2024-01-01T00:00:00Z"}"#)
        #expect(outcome.counts == ["deleted": 2])
        #expect(
            try observationsOnDisk(fixture) == [
                "46012 2024-01-01T00:00:00Z", "46012 2024-06-01T12:00:00Z",
                "46026 2024-01-01T00:00:00Z", "46026 2024-06-01T12:00:00Z",
            ])
        #expect(try fixture.container.rowCount(of: "BuoyStation") == 2, "stations stay")

        let again = try fixture.runSucceeding(#"{"kind": "prune-observations", "before": "2024-01-01T00:00:00Z"}"#)
        #expect(again.counts == ["deleted": 0], "a retry deletes nothing more")
    }

    @Test func deletesOneStationsObservations() throws {
        let fixture = try seeded(times: times)
        let outcome = try fixture.runSucceeding(
            #"{"kind": "prune-observations", "before": "2024-06-01T00:00:00Z", "station": "46026"}"#)
        #expect(outcome.counts == ["deleted": 2])
        #expect(outcome.summary.contains("station 46026"))
        #expect(
            try observationsOnDisk(fixture) == [
                "46012 2023-12-31T23:00:00Z", "46012 2024-01-01T00:00:00Z", "46012 2024-06-01T12:00:00Z",
                "46026 2024-06-01T12:00:00Z",
            ])
    }

    @Test func deletesWhatIsOlderThanADayCountBeforeTheRun() throws {
        let now = Date()
        let fixture = try seeded(times: [now.addingTimeInterval(-400 * 86_400), now.addingTimeInterval(-10 * 86_400)])
        let outcome = try fixture.runSucceeding(#"{"kind": "prune-observations", "olderThanDays": 365}"#)
        #expect(outcome.counts == ["deleted": 2])
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 2)
    }

    @Test func anUnknownStationFailsTheJobAndDeletesNothing() throws {
        let fixture = try seeded(times: times)
        let error = try fixture.runFailing(
            #"{"kind": "prune-observations", "before": "2025-01-01T00:00:00Z", "station": "4601"}"#)
        #expect(error.code == .jobFailed)
        #expect(!error.isRetryable)
        #expect(error.description.contains("4601"))
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 6)
    }

    @Test(arguments: [
        (#"{"kind": "prune-observations"}"#, "exactly one"),
        (#"{"kind": "prune-observations", "before": "2024-01-01T00:00:00Z", "olderThanDays": 3}"#, "exactly one"),
        (#"{"kind": "prune-observations", "before": "last year"}"#, "last year"),
        (#"{"kind": "prune-observations", "olderThanDays": 0}"#, "olderThanDays"),
        (#"{"kind": "prune-observations", "olderThanDays": 30, "station": ""}"#, "station"),
    ])
    func impossibleParametersAreRefusedBeforeAnythingRuns(json: String, named: String) throws {
        let fixture = try seeded(times: times)
        let error = #expect(throws: JobError.self) { try fixture.run(json) }
        #expect(error?.code == .invalidParameters)
        #expect(error?.description.contains(named) == true, "\(String(describing: error))")
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 6)
    }

    /// An import's unsaved update of an observation that the prune deletes (saved into the main
    /// context, not flushed) must not fail the next flush.
    @Test func aPruneUnderAnUnflushedUpdateOfAPrunedRowLeavesTheFlushWorking() throws {
        let fixture = try seeded(times: times)
        let importer = fixture.container.newTaskContext(name: "import")
        try importer.performAndWait {
            let old = try importer.fetch(FetchRequest<BuoyObservation>(predicate: \.time < times[1]))
            for observation in old { observation.waveHeight = 2 }
            try importer.save()
        }
        _ = try fixture.runSucceeding(#"{"kind": "prune-observations", "before": "2024-01-01T00:00:00Z"}"#)
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 4)
    }
}
