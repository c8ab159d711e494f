import BuoyXML
import Foundation
import Testing
import LineupTestSupport

@Suite("SOS writer and sample observations")
struct SOSWriterTests {
    @Test("written records read back equal, with their stations")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let samples = SampleObservations(seed: 99, count: 2_500, stations: 4)
        let url = directory.url.appendingPathComponent("round-trip.xml")
        let bytes = try SOSDocumentWriter.write(samples, to: url)
        #expect(bytes == (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int))

        let result = try readAll(url)
        #expect(result.observations == Array(samples))
        #expect(result.summary.observationCount == 2_500)
        #expect(result.summary.stationCount == 4)
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)
        #expect(
            result.stations == samples.stations.map { BuoyStationRecord(stationID: $0.stationID, latitude: $0.latitude, longitude: $0.longitude) }
        )
        let validation = try BuoyXMLReader().validate(contentsOf: url)
        #expect(validation.format == .ndbcSOSObservationCollection)
        #expect(validation.byteCount == bytes)
    }

    @Test("any records round-trip: fractions, missing values, unknown stations, interleaved stations")
    func arbitraryRecords() throws {
        let directory = try TemporaryDirectory()
        let records = [
            BuoyObservationRecord(
                stationID: "42002", time: utc("2022-02-27T11:20:00Z"), waveHeight: 8.2 * 0.3048, dominantPeriod: 15,
                averagePeriod: 8.9, meanWaveDirection: 327, windSpeed: 9.7 * 1852 / 3600, windDirection: 340,
                windGust: 11.7 * 1852 / 3600, airTemperature: (73.2 - 32) * 5 / 9, waterTemperature: -1.5, pressure: 1021.2
            ),
            BuoyObservationRecord(stationID: "42002", time: Date(timeIntervalSince1970: 1_645_961_100.25), windSpeed: 0),
            BuoyObservationRecord(stationID: "A&B<1>", time: utc("1999-12-31T23:59:59Z"), meanWaveDirection: 0, windSpeed: 1e-5),
            BuoyObservationRecord(stationID: "42002", time: utc("2022-02-28T00:00:00Z"), meanWaveDirection: 180.5, pressure: 1e3),
        ]
        let url = directory.url.appendingPathComponent("any.xml")
        try SOSDocumentWriter.write(records, stations: [BuoyStationRecord(stationID: "42002", latitude: 26.055, longitude: -93.646)], to: url)
        let result = try readAll(url)
        #expect(result.observations == records.map { record in
            var expected = record
            expected.stationID = record.stationID.uppercased()
            return expected
        })
        #expect(
            result.stations == [
                BuoyStationRecord(stationID: "42002", latitude: 26.055, longitude: -93.646),
                BuoyStationRecord(stationID: "A&B<1>"),
            ]
        )
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("<gml:name>urn:ioos:station:wmo:A&amp;B&lt;1&gt;</gml:name>"))
        #expect(text.contains("<gml:endPosition indeterminatePosition=\"unknown\"/>"))
        #expect(text.components(separatedBy: "<om:member>").count - 1 == 3)
        // Whole numbers without ".0", the direction turned round, a missing value empty.
        #expect(text.contains("urn:ioos:sensor:wmo:42002::wpm1,2022-02-28T00:00:00Z,,,,0.5,,,,,,1000\n"))
        #expect(text.contains("urn:ioos:sensor:wmo:42002::wpm1,2022-02-27T11:25:00.250Z,,,,,,,0,,,\n"))
    }

    @Test("the document has NDBC's structure: namespaces, station URN, feature type, field names, units")
    func structure() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("one.xml")
        try SOSDocumentWriter.write(SampleObservations(seed: 1, count: 2, stations: 1), to: url)
        let text = try String(contentsOf: url, encoding: .utf8)
        for fragment in [
            "<om:ObservationCollection xmlns:om=\"http://www.opengis.net/om/1.0\" xmlns:gml=\"http://www.opengis.net/gml\" xmlns:swe=\"http://www.opengis.net/swe/1.0\"",
            "<gml:name>urn:ioos:station:wmo:LNP01</gml:name>",
            "<gml:beginPosition>2024-01-01T00:00:00Z</gml:beginPosition>",
            "<gml:endPosition>2024-01-01T00:30:00Z</gml:endPosition>",
            "<om:observedProperty xlink:href=\"http://mmisw.org/ont/cf/parameter/waves\"/>",
            "discrete-sampling-geometries\">timeSeries</gml:name>",
            "<swe:DataStream definition=\"timeSeries\">",
            "<swe:value>34.5</swe:value>",
            "<swe:field name=\"sea_surface_wave_significant_height\">",
            "<swe:field name=\"sea_surface_wave_peak_period\">",
            "<swe:field name=\"sea_surface_wave_mean_period\">",
            "<swe:field name=\"sea_surface_wave_to_direction\">",
            "<swe:field name=\"sea_water_temperature\">",
            "<swe:field name=\"wind_from_direction\">",
            "<swe:field name=\"wind_speed_of_gust\">",
            "<swe:field name=\"air_pressure_at_sea_level\">",
            "<swe:uom code=\"Cel\"/>",
            "<swe:uom code=\"hPa\"/>",
            "<swe:TextEncoding decimalSeparator=\".\" tokenSeparator=\",\" blockSeparator=\"\\n\"/>",
            "<swe:values>urn:ioos:sensor:wmo:LNP01::wpm1,2024-01-01T00:00:00Z,",
        ] {
            #expect(text.contains(fragment), "\(fragment)")
        }
        let validation = try BuoyXMLReader().validate(contentsOf: url)
        #expect(validation.elementCount == 82)
    }

    @Test("the same seed gives the same bytes; another seed other values")
    func determinism() throws {
        let directory = try TemporaryDirectory()
        let first = directory.url.appendingPathComponent("first.xml")
        let second = directory.url.appendingPathComponent("second.xml")
        let other = directory.url.appendingPathComponent("other.xml")
        try SOSDocumentWriter.write(SampleObservations(seed: 42, count: 1000, stations: 3), to: first)
        try SOSDocumentWriter.write(SampleObservations(seed: 42, count: 1000, stations: 3), to: second)
        try SOSDocumentWriter.write(SampleObservations(seed: 43, count: 1000, stations: 3), to: other)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))
        #expect(try Data(contentsOf: first) != Data(contentsOf: other))
        #expect(Array(SampleObservations(seed: 42, count: 50)) == Array(SampleObservations(seed: 42, count: 50)))
    }

    @Test("sample observations: grouped by station, half-hourly, realistic, some values missing")
    func sampleObservations() throws {
        let samples = SampleObservations(seed: 5, count: 10_001, stations: 3)
        let records = Array(samples)
        #expect(records.count == 10_001)
        #expect((0..<3).map(samples.recordCount(ofStationAt:)) == [3334, 3334, 3333])
        #expect(records.map(\.stationID) == Array(repeating: "LNP01", count: 3334) + Array(repeating: "LNP02", count: 3334) + Array(repeating: "LNP03", count: 3333))
        #expect(records[0].time == SampleObservations.start)
        #expect(records[3333].time == SampleObservations.start.addingTimeInterval(3333 * 1800))
        #expect(records[3334].time == SampleObservations.start)
        #expect(samples.samplingTimes["LNP03"] == SampleObservations.start...SampleObservations.start.addingTimeInterval(3332 * 1800))

        for record in records {
            for property in BuoyObservationProperty.allCases {
                if let value = record[property] {
                    #expect(BuoyRejection.bounds(of: property).contains(value), "\(property) \(value)")
                }
            }
            #expect(record.windSpeed != nil)
            if let gust = record.windGust, let speed = record.windSpeed {
                #expect(gust >= speed)
            }
        }
        let missingGusts = records.filter { $0.windGust == nil }.count
        let missingWaves = records.filter { $0.waveHeight == nil }.count
        #expect((200...400).contains(missingGusts))
        #expect((50...150).contains(missingWaves))
        #expect(records.allSatisfy { ($0.waveHeight == nil) == ($0.dominantPeriod == nil) })
        let heights = records.compactMap(\.waveHeight)
        #expect(heights.min()! >= 0.2 && heights.max()! <= 8.5)
        #expect(Set(heights).count > 200)
    }

    @Test("a writer that cannot create its file throws; one dropped unclosed leaves nothing behind")
    func failuresAndCleanUp() throws {
        let directory = try TemporaryDirectory()
        let nowhere = directory.url.appendingPathComponent("missing/dir/out.xml")
        let error = #expect(throws: FixtureWriteError.self) { _ = try SOSDocumentWriter(url: nowhere) }
        #expect(error?.path == nowhere.path)
        #expect(error?.systemErrorNumber == ENOENT)

        do {
            let writer = try SOSDocumentWriter(url: directory.url.appendingPathComponent("dropped.xml"))
            try writer.write(BuoyObservationRecord(stationID: "X", time: Date(), windSpeed: 1))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }
}
