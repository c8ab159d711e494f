import Foundation
import LineupJobs
import LineupStore
import SurfJournal
import Testing

@Suite struct ImportBuoyTaskTests {
    @Test func rssOfStation42002() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/ndbc-rss-42002-2022-02-27.xml")
        let outcome = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "ndbc-rss-42002-2022-02-27.xml"}"#)
        #expect(outcome.counts["observationsInserted"] == 1)
        let context = fixture.container.newTaskContext(name: "check")
        try context.performAndWait {
            let observations = try context.fetch(FetchRequest<BuoyObservation>())
            #expect(observations.count == 1)
            let observation = observations[0]
            #expect(observation.station?.stationID == "42002")
            #expect(observation.time == utc("2022-02-27T11:20:00Z"))
            #expect(abs(observation.waveHeight! - 8.2 * 0.3048) < 1e-9)
            #expect(abs(observation.windSpeed! - 9.7 * 1852 / 3600) < 1e-9)
            #expect(observation.dominantPeriod == 15)
        }
    }

    @Test func sosWindsOf41012KeepAMissingGustMissing() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/pyoos-ndbc-sos-winds-41012.xml")
        let outcome = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "pyoos-ndbc-sos-winds-41012.xml"}"#)
        #expect(outcome.counts["observationsInserted"] == 24)
        #expect(try fixture.count(FetchRequest<BuoyObservation>()) == 24)
        #expect(try fixture.count(FetchRequest<BuoyObservation>(predicate: \.windGust == nil)) == 1)
        #expect(try fixture.count(FetchRequest<BuoyObservation>(predicate: \.windGust == 0)) == 0)
    }

    @Test func aReRunUpsertsAndDuplicatesNothing() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/pyoos-ndbc-sos-winds-41012.xml")
        let job = #"{"kind": "import-buoy", "input": "pyoos-ndbc-sos-winds-41012.xml"}"#
        _ = try fixture.runSucceeding(job)
        let again = try fixture.runSucceeding(job)
        #expect(again.counts["observationsInserted"] == 0)
        #expect(again.counts["observationsUnchanged"] == 24)
        #expect(try fixture.container.store.rowCount(of: "BuoyObservation") == 24)
        #expect(try fixture.container.store.rowCount(of: "BuoyStation") == 1)
    }

    @Test(arguments: ["pyoos-ndbc-sos-currents-41012-profile.xml", "pyoos-ndbc-sos-salinity-48900-trajectory.xml"])
    func filesWithoutSurfPropertiesGiveNoObservationsAndCountTheIgnoredValues(_ name: String) throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/\(name)")
        let outcome = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "\#(name)"}"#)
        #expect(outcome.counts["observationsInserted"] == 0)
        #expect((outcome.counts["ignoredValues"] ?? 0) > 0)
        #expect(try fixture.container.store.rowCount(of: "BuoyObservation") == 0)
    }

    @Test func stationCatalogue() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/ndbc-activestations-2025-06-13.xml")
        let outcome = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "ndbc-activestations-2025-06-13.xml"}"#)
        #expect(outcome.counts["stationsInserted"] == 1_350)
        #expect(try fixture.container.store.rowCount(of: "BuoyStation") == 1_350)
    }

    @Test func aMalformedDocumentFailsWithLineAndColumnAndSavesNothing() throws {
        let fixture = try JournalFixture()
        let valid = try String(contentsOf: corpusDirectory.appendingPathComponent("ndbc/pyoos-ndbc-sos-winds-41012.xml"), encoding: .utf8)
        try fixture.writeInput("truncated.xml", String(valid.prefix(valid.count * 3 / 4)))
        let result = try fixture.run(#"{"kind": "import-buoy", "input": "truncated.xml"}"#)
        let error = try #require(result.error as? JobError)
        #expect(!error.isRetryable)
        // "<path>/truncated.xml:<line>:<column>: <libxml2's message>"
        #expect(error.description.contains(try Regex("truncated\\.xml:[0-9]+:[0-9]+: ")))
        #expect(!fixture.container.mainContext.performAndWait { fixture.container.mainContext.hasChanges })
    }

    @Test func inputOutsideTheInputDirectoryIsRefused() throws {
        let fixture = try JournalFixture()
        for path in ["../store.sqlite", "/etc/passwd"] {
            let error = #expect(throws: JobError.self) { try fixture.run(#"{"kind": "import-buoy", "input": "\#(path)"}"#) }
            #expect(error?.code == .pathOutsideAllowedDirectory)
        }
        let missing = #expect(throws: JobError.self) { try fixture.run(#"{"kind": "import-buoy"}"#) }
        #expect(missing?.code == .invalidParameters)
    }
}

@Suite struct StationMergeTests {
    @Test func observationsAfterTheCatalogueKeepTheCataloguesStationDetails() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/ndbc-activestations-2025-06-13.xml")
        try fixture.copyCorpus("ndbc/ndbc-rss-42002-2022-02-27.xml")
        _ = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "ndbc-activestations-2025-06-13.xml"}"#)
        let before = try station("42002", fixture)
        _ = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "ndbc-rss-42002-2022-02-27.xml"}"#)
        let after = try station("42002", fixture)
        #expect(before.name != nil && before.owner != nil)
        #expect(after.name == before.name && after.owner == before.owner && after.type == before.type)
    }

    private func station(_ id: String, _ fixture: JournalFixture) throws -> (name: String?, owner: String?, type: String?) {
        let context = fixture.container.newTaskContext(name: "check")
        return try context.performAndWait {
            let station = try #require(try context.fetch(FetchRequest<BuoyStation>(predicate: \.stationID == id)).first)
            return (station.name, station.owner, station.stationType)
        }
    }
}
