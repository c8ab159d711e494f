import BuoyXML
import Foundation
import Testing

/// Every generation of NDBC's `latest_obs` RSS reads to the same kind of record
/// (``RSSGenerationSamples``).
@Suite("RSS generations")
struct RSSGenerationTests {
    private let knot = 1852.0 / 3600
    private let foot = 0.3048

    private func fahrenheit(_ value: Double) -> Double { (value - 32) * 5 / 9 }

    private func read(_ document: String) throws -> ReadResult {
        let directory = try TemporaryDirectory()
        return try readAll(directory.file("latest.rss", document))
    }

    /// The document without its guid line, so that only the date line gives the time.
    private func withoutGuid(_ document: String) -> String {
        document.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("<guid") }
            .joined(separator: "\n")
    }

    private func expectClose(_ actual: Double?, _ expected: Double?, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let actual, let expected else {
            #expect(actual == nil && expected == nil, "\(name)", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(actual - expected) < 1e-9, "\(name): \(actual) ≠ \(expected)", sourceLocation: sourceLocation)
    }

    private func expectRecord(_ actual: BuoyObservationRecord?, _ expected: BuoyObservationRecord, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let actual else {
            Issue.record("no observation", sourceLocation: sourceLocation)
            return
        }
        #expect(actual.stationID == expected.stationID, sourceLocation: sourceLocation)
        #expect(actual.time == expected.time, sourceLocation: sourceLocation)
        for property in BuoyObservationProperty.allCases {
            expectClose(actual[property], expected[property], property.rawValue, sourceLocation: sourceLocation)
        }
    }

    @Test("about 2012, station 62081 off Europe: 1700 UTC, a ts= guid, no gust and no dominant period")
    func utc2012() throws {
        let result = try read(RSSGenerationSamples.utc2012Station62081)
        #expect(result.observations.count == 1)
        expectRecord(
            result.observations.first,
            BuoyObservationRecord(
                stationID: "62081", time: utc("2012-10-04T17:00:00Z"), waveHeight: 11.5 * foot, averagePeriod: 7,
                windSpeed: 21.4 * knot, windDirection: 230, airTemperature: fahrenheit(56.1), pressure: 1009.4))
        #expect(result.stations == [BuoyStationRecord(stationID: "62081", name: "K2 Buoy", latitude: 51, longitude: -13.3)])
        #expect(result.summary.ignoredValues == ["Pressure Tendency": 1])
        #expect(result.summary.rejectedRecords.isEmpty)
    }

    @Test("about 2014, station 41001: 6:50 am EDT and a ts= guid")
    func twelveHour2014() throws {
        let result = try read(RSSGenerationSamples.twelveHour2014Station41001)
        #expect(result.observations.count == 1)
        expectRecord(
            result.observations.first,
            BuoyObservationRecord(
                stationID: "41001", time: utc("2014-09-18T10:50:00Z"), waveHeight: 6.9 * foot, dominantPeriod: 9,
                averagePeriod: 6.3, meanWaveDirection: 62, windSpeed: 15.5 * knot, windDirection: 50, windGust: 19.4 * knot,
                waterTemperature: fahrenheit(80.8)))
        #expect(
            result.stations == [
                BuoyStationRecord(stationID: "41001", name: "EAST HATTERAS - 150 NM East of Cape Hatteras", latitude: 34.675, longitude: -72.698)
            ])
    }

    @Test("since about 2016, wave-only buoy 46274: no wind, gust or pressure lines, an NDBC- guid")
    func waveOnly2024() throws {
        let result = try read(RSSGenerationSamples.waveOnly2024Station46274)
        #expect(result.observations.count == 1)
        expectRecord(
            result.observations.first,
            BuoyObservationRecord(
                stationID: "46274", time: utc("2024-03-04T21:56:00Z"), waveHeight: 4.6 * foot, dominantPeriod: 13,
                averagePeriod: 6.8, meanWaveDirection: 263, waterTemperature: fahrenheit(62.2)))
        #expect(result.stations.map(\.name) == ["Leucadia Nearshore, CA (262)"])
        #expect(result.summary.ignoredValueCount == 0)
        #expect(result.summary.rejectedValueCount == 0)
    }

    @Test("since about 2016, station 62145: 11:00 UTC, an NDBC- guid, no dominant period")
    func utc2022() throws {
        let result = try read(RSSGenerationSamples.utc2022Station62145)
        #expect(result.observations.count == 1)
        expectRecord(
            result.observations.first,
            BuoyObservationRecord(
                stationID: "62145", time: utc("2022-02-27T11:00:00Z"), waveHeight: 9.8 * foot, averagePeriod: 5.9,
                windSpeed: 25.3 * knot, windDirection: 270, windGust: 31.1 * knot))
        #expect(result.stations == [BuoyStationRecord(stationID: "62145", name: "North Sea Platform", latitude: 53.102, longitude: 2.8)])
    }

    @Test(
        "the date line of each generation alone gives the time its guid gives",
        arguments: [
            (RSSGenerationSamples.utc2012Station62081, "2012-10-04T17:00:00Z"),
            (RSSGenerationSamples.twelveHour2014Station41001, "2014-09-18T10:50:00Z"),
            (RSSGenerationSamples.waveOnly2024Station46274, "2024-03-04T21:56:00Z"),
            (RSSGenerationSamples.utc2022Station62145, "2022-02-27T11:00:00Z"),
        ])
    func dateLineAlone(document: String, time: String) throws {
        #expect(!withoutGuid(document).contains("<guid"))
        let result = try read(withoutGuid(document))
        #expect(result.observations.map(\.time) == [utc(time)])
        // The station then comes from the title.
        #expect(result.observations.map(\.stationID) == (try read(document)).observations.map(\.stationID))
    }

    @Test(
        "24-hour times with or without a colon, in UTC, UT or GMT",
        arguments: [
            ("October 4, 2012 1700 UTC", "2012-10-04T17:00:00Z"),
            ("October 4, 2012 0005 UT", "2012-10-04T00:05:00Z"),
            ("February 27, 2022 23:40 GMT", "2022-02-27T23:40:00Z"),
            ("February 27, 2022 07:10 UTC", "2022-02-27T07:10:00Z"),
        ])
    func twentyFourHourTimes(line: String, time: String) throws {
        let document = RSSGenerationSamples.utc2012Station62081.replacingOccurrences(of: "October 4, 2012 1700 UTC", with: line)
        #expect(try read(withoutGuid(document)).observations.map(\.time) == [utc(time)])
    }

    @Test("when the date line and a ts= guid disagree, the guid's time wins")
    func tsGuidWinsOverTheDateLine() throws {
        // The text says 6:50 am EDT (10:50 UTC); the guid says 11:20 UTC.
        let document = RSSGenerationSamples.twelveHour2014Station41001.replacingOccurrences(of: "ts=1411037400", with: "ts=1411039200")
        #expect(try read(document).observations.map(\.time) == [utc("2014-09-18T11:20:00Z")])
    }

    @Test("when the date line and an NDBC- guid disagree, the guid's time wins")
    func ndbcGuidWinsOverTheDateLine() throws {
        // The text says 11:00 UTC; the guid says 11:50.
        let document = RSSGenerationSamples.utc2022Station62145.replacingOccurrences(of: "20220227110000", with: "20220227115000")
        #expect(try read(document).observations.map(\.time) == [utc("2022-02-27T11:50:00Z")])
    }

    @Test(
        "a guid whose time cannot be read leaves the time to the date line, and still names the station",
        arguments: [
            ("ts=1349370000", "ts=soon"),
            ("ts=1349370000", "ts=134937"),
            ("&amp;ts=1349370000", ""),
        ])
    func unreadableGuidTime(original: String, broken: String) throws {
        let document = RSSGenerationSamples.utc2012Station62081
            .replacingOccurrences(of: original, with: broken)
            .replacingOccurrences(of: "<title>Station 62081 - K2 Buoy</title>", with: "<title>K2</title>")
            .replacingOccurrences(of: "<link>http://www.ndbc.noaa.gov/station_page.php?station=62081</link>", with: "")
        let result = try read(document)
        #expect(result.observations.map(\.time) == [utc("2012-10-04T17:00:00Z")])
        #expect(result.observations.map(\.stationID) == ["62081"])
    }
}
