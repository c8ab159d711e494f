import Foundation
import LineupJobs
import LineupSpool
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
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 24)
        #expect(try fixture.container.rowCount(of: "BuoyStation") == 1)
    }

    @Test(arguments: [
        ("pyoos-ndbc-sos-currents-41012-profile.xml", "found 300 SOS rows, none with a value of a property the model holds; values of other properties: direction_of_sea_water_velocity (300)"),
        ("pyoos-ndbc-sos-salinity-48900-trajectory.xml", "found 2041 SOS rows, none with a value of a property the model holds; values of other properties: sea_water_salinity (2041)"),
    ])
    func filesWithoutSurfPropertiesFailSayingWhatTheyHoldAndStoreNothing(_ name: String, found: String) throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/\(name)")
        let error = try fixture.runFailing(#"{"kind": "import-buoy", "input": "\#(name)"}"#)
        #expect(!error.isRetryable)
        #expect(error.message.hasPrefix("\(fixture.input.appendingPathComponent(name).path): no observation the importer can read: \(found)"))
        try fixture.expectNothingStored()
    }

    @Test func anRSSFeedWhoseDatesCannotBeReadFailsWithTheFirstUnreadableTextAndStoresNothing() throws {
        let fixture = try JournalFixture()
        let corpus = try String(contentsOf: corpusDirectory.appendingPathComponent("ndbc/ndbc-rss-42002-2022-02-27.xml"), encoding: .utf8)
        // A zone the importer does not know, and no guid to fall back on.
        let feed = corpus.replacingOccurrences(of: "5:20 am CST", with: "5:20 am WGT")
            .replacingOccurrences(of: #"<guid isPermaLink="false">NDBC-42002-20220227112000</guid>"#, with: "")
        try fixture.writeInput("42002.rss", feed)
        let error = try fixture.runFailing(#"{"kind": "import-buoy", "input": "42002.rss"}"#)
        #expect(!error.isRetryable)
        // The date line is line 24 of the feed; its <strong> starts at column 9.
        #expect(
            error.message
                == "\(fixture.input.appendingPathComponent("42002.rss").path): no observation the importer can read: found 1 RSS item; "
                + "1 record skipped: 1 with unreadable time (first \"February 27, 2022 5:20 am WGT\" at line 24, column 9); "
                + "values of other properties: Dew Point (1), Tide (1)"
        )
        try fixture.expectNothingStored()
    }

    @Test func anObservationCollectionOfAnotherKindIsRefusedByNameAndStoresNothing() throws {
        let fixture = try JournalFixture()
        try fixture.writeInput(
            "waterlevel.xml",
            """
            <om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0" xmlns:xlink="http://www.w3.org/1999/xlink">
              <om:member>
                <om:Measurement>
                  <om:observedProperty xlink:href="urn:ogc:def:phenomenon:OGC:1.0.30:waterlevel"/>
                  <om:result uom="m">-0.094</om:result>
                </om:Measurement>
              </om:member>
            </om:ObservationCollection>
            """)
        let error = try fixture.runFailing(#"{"kind": "import-buoy", "input": "waterlevel.xml"}"#)
        #expect(!error.isRetryable)
        #expect(error.message.contains("waterlevel.xml: root element {http://www.opengis.net/om/1.0}ObservationCollection is an O&M collection but not an IOOS SOS response"))
        #expect(error.message.contains("(found {http://www.opengis.net/om/1.0}Measurement)"))
        try fixture.expectNothingStored()
    }

    @Test func aDocumentOfAnUnknownFormatIsRefusedByItsRootElementAndNamespace() throws {
        let fixture = try JournalFixture()
        try fixture.writeInput("feed.xml", #"<feed xmlns="http://www.w3.org/2005/Atom"><entry/></feed>"#)
        let error = try fixture.runFailing(#"{"kind": "import-buoy", "input": "feed.xml"}"#)
        #expect(!error.isRetryable)
        #expect(error.message.contains("feed.xml:1:"))
        #expect(error.message.contains("root element {http://www.w3.org/2005/Atom}feed is not an NDBC latest_obs RSS feed"))
        try fixture.expectNothingStored()
    }

    @Test func aPartlyReadableFeedSucceedsAndSaysHowManyItemsWereSkippedAndWhy() throws {
        let fixture = try JournalFixture()
        let corpus = try String(contentsOf: corpusDirectory.appendingPathComponent("ndbc/ndbc-rss-42002-2022-02-27.xml"), encoding: .utf8)
        let itemStart = try #require(corpus.range(of: "    <item>"))
        let itemEnd = try #require(corpus.range(of: "</item>\n"))
        let secondItem = String(corpus[itemStart.lowerBound..<itemEnd.upperBound])
            .replacingOccurrences(of: "5:20 am CST", with: "5:50 am WGT")
            .replacingOccurrences(of: #"<guid isPermaLink="false">NDBC-42002-20220227112000</guid>"#, with: "")
        let feed = corpus.replacingOccurrences(of: "  </channel>", with: secondItem + "  </channel>")
        try fixture.writeInput("42002.rss", feed)
        let outcome = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "42002.rss"}"#)
        #expect(outcome.counts["observationsInserted"] == 1)
        #expect(outcome.counts["rejectedRecords"] == 1)
        #expect(outcome.summary.hasSuffix("; 1 record skipped: 1 with unreadable time (first \"February 27, 2022 5:50 am WGT\" at line 47, column 9)"))
        #expect(outcome.details["rejectedRecords"] == .object(["record with unreadable time": .integer(1)]))
        #expect(try fixture.container.rowCount(of: "BuoyObservation") == 1)
    }

    @Test func stationCatalogue() throws {
        let fixture = try JournalFixture()
        try fixture.copyCorpus("ndbc/ndbc-activestations-2025-06-13.xml")
        let outcome = try fixture.runSucceeding(#"{"kind": "import-buoy", "input": "ndbc-activestations-2025-06-13.xml"}"#)
        #expect(outcome.counts["stationsInserted"] == 1_350)
        #expect(try fixture.container.rowCount(of: "BuoyStation") == 1_350)
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
