import BuoyXML
import Foundation
import Testing

/// The real NDBC files of the shared corpus, with values checked by hand against the files.
@Suite("Real NDBC files")
struct CorpusTests {
    @Test("latest_obs RSS of 42002: one observation, every field converted to SI")
    func rss42002() throws {
        let result = try readAll(TestPaths.corpusFile("ndbc-rss-42002-2022-02-27.xml"))
        #expect(result.summary.format == .ndbcLatestObservationRSS)
        #expect(result.summary.observationCount == 1)
        #expect(result.observations.count == 1)
        let observation = try #require(result.observations.first)
        #expect(observation.stationID == "42002")
        #expect(observation.time == utc("2022-02-27T11:20:00Z"))
        let feet: Double = 8.2 * 0.3048
        let knots: Double = 9.7 * 1852 / 3600
        let gustKnots: Double = 11.7 * 1852 / 3600
        let airFahrenheit: Double = (73.2 - 32) * 5 / 9
        let waterFahrenheit: Double = (73.9 - 32) * 5 / 9
        #expect(observation.waveHeight == feet)
        #expect(abs(observation.waveHeight! - 2.49936) < 1e-12)
        #expect(observation.windSpeed == knots)
        #expect(observation.windGust == gustKnots)
        #expect(observation.windDirection == 340)
        #expect(observation.dominantPeriod == 15)
        #expect(observation.averagePeriod == 8.9)
        #expect(observation.meanWaveDirection == 327)
        // 73.2 °F is finer than the rounded 22.9 °C beside it; 1021.2 mb finer than 30.16 in.
        #expect(observation.airTemperature == airFahrenheit)
        #expect(observation.waterTemperature == waterFahrenheit)
        #expect(abs(observation.airTemperature! - 22.9) < 0.05)
        #expect(abs(observation.waterTemperature! - 23.3) < 0.05)
        #expect(observation.pressure == 1021.2)
        #expect(result.summary.ignoredValues == ["Dew Point": 1, "Tide": 1])
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)

        #expect(result.summary.stationCount == 1)
        #expect(
            result.stations == [
                BuoyStationRecord(
                    stationID: "42002",
                    name: "WEST GULF - 207 NM East of Brownsville, TX",
                    latitude: 26.055,
                    longitude: -93.646
                )
            ]
        )
    }

    @Test("SOS winds of 41012: 24 hourly rows, one without gust")
    func sosWinds41012() throws {
        let result = try readAll(TestPaths.corpusFile("pyoos-ndbc-sos-winds-41012.xml"))
        #expect(result.summary.format == .ndbcSOSObservationCollection)
        #expect(result.summary.observationCount == 24)
        #expect(result.observations.count == 24)
        #expect(result.observations.allSatisfy { $0.stationID == "41012" })
        #expect(result.observations.first?.time == utc("2011-03-01T00:50:00Z"))
        #expect(result.observations.last?.time == utc("2011-03-01T23:50:00Z"))
        let times = result.observations.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 3600 })

        #expect(
            result.observations.first
                == BuoyObservationRecord(
                    stationID: "41012",
                    time: utc("2011-03-01T00:50:00Z"),
                    windSpeed: 8,
                    windDirection: 200,
                    windGust: 9
                )
        )
        let withoutGust = result.observations.filter { $0.windGust == nil }
        #expect(withoutGust.count == 1)
        #expect(
            withoutGust.first
                == BuoyObservationRecord(stationID: "41012", time: utc("2011-03-01T11:50:00Z"), windSpeed: 5, windDirection: 240)
        )
        // 360.0 is north, inside the bounds.
        #expect(result.observations[15].windDirection == 360)
        #expect(result.observations.map(\.windSpeed) == [8, 7, 6, 6, 8, 7, 7, 9, 9, 8, 6, 5, 6, 10, 8, 8, 8, 9, 10, 11, 12, 13, 12, 12])
        #expect(result.observations.allSatisfy { $0.waveHeight == nil && $0.pressure == nil && $0.airTemperature == nil })
        #expect(result.summary.ignoredValues.isEmpty)
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)
        #expect(result.stations == [BuoyStationRecord(stationID: "41012", latitude: 30.04, longitude: -80.55)])
    }

    @Test("SOS currents profile of 41012: nothing readable, the current values counted as ignored")
    func sosCurrents41012() throws {
        let result = try #require(readYieldingNothing(TestPaths.corpusFile("pyoos-ndbc-sos-currents-41012-profile.xml")))
        #expect(result.callbacks == 0)
        #expect(result.summary.format == .ndbcSOSObservationCollection)
        #expect(result.summary.recordCount == 300)
        #expect(result.summary.observationCount == 0)
        #expect(result.summary.stationCount == 0)
        // 300 rows; of the 21 property columns only these five hold values.
        #expect(
            result.summary.ignoredValues == [
                "direction_of_sea_water_velocity": 300,
                "sea_water_speed": 300,
                "upward_sea_water_velocity": 300,
                "error_velocity": 300,
                "quality_flags": 300,
            ]
        )
        #expect(result.summary.ignoredValueCount == 1500)
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)
        #expect(
            result.error.description
                == "\(TestPaths.corpusFile("pyoos-ndbc-sos-currents-41012-profile.xml").path): no observation the importer can read: "
                + "found 300 SOS rows, none with a value of a property the model holds; values of other properties: "
                + "direction_of_sea_water_velocity (300), error_velocity (300), quality_flags (300), sea_water_speed (300) and 1 more"
        )
    }

    @Test("SOS salinity trajectory of glider 48900: nothing readable, 2,041 ignored salinities")
    func sosSalinity48900() throws {
        let result = try #require(readYieldingNothing(TestPaths.corpusFile("pyoos-ndbc-sos-salinity-48900-trajectory.xml")))
        #expect(result.callbacks == 0)
        #expect(result.summary.format == .ndbcSOSObservationCollection)
        #expect(result.summary.recordCount == 2041)
        #expect(result.summary.ignoredValues == ["sea_water_salinity": 2041])
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)
        #expect(result.error.message.hasSuffix("found 2041 SOS rows, none with a value of a property the model holds; values of other properties: sea_water_salinity (2041)"))
    }

    @Test("activestations catalogue: 1,350 stations, attributes decoded")
    func activeStations() throws {
        let result = try readAll(TestPaths.corpusFile("ndbc-activestations-2025-06-13.xml"))
        #expect(result.summary.format == .ndbcActiveStations)
        #expect(result.summary.stationCount == 1350)
        #expect(result.stations.count == 1350)
        #expect(result.observations.isEmpty)
        #expect(Set(result.stations.map(\.stationID)).count == 1350)
        #expect(result.stations.filter { $0.name == nil }.count == 35)
        #expect(result.stations.allSatisfy { $0.latitude != nil && $0.longitude != nil && $0.owner != nil && $0.type != nil })

        let byID = Dictionary(uniqueKeysWithValues: result.stations.map { ($0.stationID, $0) })
        #expect(
            byID["42002"]
                == BuoyStationRecord(
                    stationID: "42002",
                    name: "WEST GULF - 207 NM East of Brownsville, TX",
                    latitude: 25.95,
                    longitude: -93.78,
                    owner: "NDBC",
                    type: "other"
                )
        )
        // The first station, a lower-case C-MAN style id, and one without `elev`.
        #expect(result.stations.first?.stationID == "0Y2W3")
        #expect(
            byID["ZBQN7"]
                == BuoyStationRecord(
                    stationID: "ZBQN7",
                    name: "Zeke's Basin, North Carolina",
                    latitude: 33.955,
                    longitude: -77.935,
                    owner: "National Estuarine Research Reserve System",
                    type: "fixed"
                )
        )
        // `&amp;` and `&quot;` in attribute values.
        #expect(result.stations.contains { $0.name == "Eugene Island 215 (McMoRan Oil & Gas)" })
        #expect(result.stations.contains { $0.name == "Tartan \"A\" AWS" })
        #expect(result.stations.filter { $0.type == "buoy" }.count == 381)

        #expect(result.summary.ignoredValues["pgm"] == 1350)
        #expect(result.summary.ignoredValues["elev"] == 1086)
        #expect(result.summary.ignoredValues["met"] == 1304)
        #expect(result.summary.ignoredValues["seq"] == 46)
        #expect(result.summary.rejectedValues.isEmpty)
        #expect(result.summary.rejectedRecords.isEmpty)
    }
}
