import BuoyXML
import Foundation
import Testing
import LineupTestSupport

/// The committed files of `samples/` parse, with the values they were written with.
@Suite("Sample files")
struct SampleFileTests {
    @Test("the RSS sample of LNP01")
    func rssSample() throws {
        let result = try readAll(TestPaths.sample("ndbc-latest-obs-lnp01.xml"))
        #expect(result.summary.format == .ndbcLatestObservationRSS)
        let height: Double = 7.5 * 0.3048
        let speed: Double = 13.6 * 1852 / 3600
        let air: Double = (55.9 - 32) * 5 / 9
        let water: Double = (56.8 - 32) * 5 / 9
        #expect(
            result.observations == [
                BuoyObservationRecord(
                    stationID: "LNP01",
                    time: utc("2024-01-15T14:50:00Z"),
                    waveHeight: height,
                    dominantPeriod: 14,
                    averagePeriod: 9.1,
                    meanWaveDirection: 275,
                    windSpeed: speed,
                    windDirection: 290,
                    windGust: nil,
                    airTemperature: air,
                    waterTemperature: water,
                    pressure: 1017.2
                )
            ]
        )
        #expect(result.summary.ignoredValues == ["Pressure Tendency": 1, "Dew Point": 1, "Visibility": 1])
        #expect(result.summary.rejectedValues.isEmpty)
        let expectedStation = SampleObservations.stations(count: 1)[0]
        #expect(
            result.stations == [
                BuoyStationRecord(
                    stationID: "LNP01",
                    name: expectedStation.name,
                    latitude: expectedStation.latitude,
                    longitude: expectedStation.longitude
                )
            ]
        )
    }

    @Test("the SOS sample holds exactly the generated observations")
    func sosSample() throws {
        let samples = SampleObservations(seed: 2024, count: 300, stations: 3)
        let result = try readAll(TestPaths.sample("ndbc-sos-waves-sample.xml"))
        #expect(result.summary.format == .ndbcSOSObservationCollection)
        #expect(result.observations == Array(samples))
        #expect(result.observations.count == 300)
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)
        #expect(result.summary.ignoredValues.isEmpty)
        #expect(
            result.stations
                == samples.stations.map { BuoyStationRecord(stationID: $0.stationID, latitude: $0.latitude, longitude: $0.longitude) }
        )
    }

    @Test("the SOS sample is byte for byte what the writer produces (regenerate it with generate-large.sh)")
    func sosSampleIsCurrent() throws {
        let directory = try TemporaryDirectory()
        let fresh = directory.url.appendingPathComponent("fresh.xml")
        try SOSDocumentWriter.write(SampleObservations(seed: 2024, count: 300, stations: 3), to: fresh)
        let committed = try Data(contentsOf: TestPaths.sample("ndbc-sos-waves-sample.xml"))
        #expect(try Data(contentsOf: fresh) == committed)
    }

    @Test("the catalogue sample lists the sample stations")
    func catalogueSample() throws {
        let result = try readAll(TestPaths.sample("ndbc-activestations-sample.xml"))
        #expect(result.summary.format == .ndbcActiveStations)
        #expect(result.stations == SampleObservations.stations(count: 3))
        #expect(result.summary.ignoredValues == ["elev": 3, "pgm": 3, "met": 3, "currents": 3, "waterquality": 3, "dart": 3])
    }

    @Test("the sample stations are invented: none is in NDBC's catalogue")
    func inventedStations() throws {
        let catalogue = try readAll(TestPaths.corpusFile("ndbc-activestations-2025-06-13.xml"))
        let real = Set(catalogue.stations.map(\.stationID))
        let invented = SampleObservations.stations(count: 120).map(\.stationID)
        #expect(Set(invented).count == 120)
        #expect(real.isDisjoint(with: invented))
    }
}
