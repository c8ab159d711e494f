import BuoyXML
import Foundation
import Testing

/// Values outside physical bounds are not delivered; the record still is, and the value is
/// counted with its reason. A missing value is `nil`, never 0.
@Suite("Physical bounds")
struct BoundsTests {
    @Test("the bounds and the reasons")
    func boundsAndReasons() {
        #expect(BuoyRejection.bounds(of: .waveHeight) == 0...30)
        #expect(BuoyRejection.bounds(of: .dominantPeriod) == 1...30)
        #expect(BuoyRejection.bounds(of: .averagePeriod) == 1...30)
        #expect(BuoyRejection.bounds(of: .meanWaveDirection) == 0...360)
        #expect(BuoyRejection.bounds(of: .windDirection) == 0...360)
        #expect(BuoyRejection.bounds(of: .windSpeed) == 0...80)
        #expect(BuoyRejection.bounds(of: .windGust) == 0...100)
        #expect(BuoyRejection.bounds(of: .airTemperature) == -70...60)
        #expect(BuoyRejection.bounds(of: .waterTemperature) == -5...45)
        #expect(BuoyRejection.bounds(of: .pressure) == 850...1090)
        #expect(BuoyRejection.belowMinimum(.waveHeight) == "waveHeight below 0 m")
        #expect(BuoyRejection.aboveMaximum(.dominantPeriod) == "dominantPeriod above 30 s")
        #expect(BuoyRejection.aboveMaximum(.meanWaveDirection) == "meanWaveDirection above 360 deg")
        #expect(BuoyRejection.belowMinimum(.waterTemperature) == "waterTemperature below -5 °C")
        #expect(BuoyRejection.belowMinimum(.pressure) == "pressure below 850 hPa")
        #expect(BuoyRejection.notANumber(.windSpeed) == "windSpeed not a number")
        #expect(BuoyRejection.unsupportedUnit(.windGust) == "windGust in unsupported unit")
    }

    /// An SOS document with one bad value per row, in the units of the header.
    private func sosDocument(rows: [String], fields: [(name: String, unit: String)]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <om:ObservationCollection xmlns:om="http://www.opengis.net/om/1.0" xmlns:gml="http://www.opengis.net/gml" xmlns:swe="http://www.opengis.net/swe/1.0" xmlns:xlink="http://www.w3.org/1999/xlink">
              <om:member><om:Observation>
                <gml:name>urn:ioos:station:wmo:46042</gml:name>
                <om:result><swe:DataStream definition="timeSeries">
                  <swe:field name="time"><swe:Time definition="http://www.opengis.net/def/property/OGC/0/SamplingTime"/></swe:field>

            """
        for field in fields {
            text += "      <swe:field name=\"\(field.name)\"><swe:Quantity><swe:uom code=\"\(field.unit)\"/></swe:Quantity></swe:field>\n"
        }
        text += """
                  <swe:encoding><swe:TextEncoding decimalSeparator="." tokenSeparator="," blockSeparator="\\n"/></swe:encoding>
                  <swe:values>
            """
        text += rows.joined(separator: "\n")
        text += "\n</swe:values></swe:DataStream></om:result>\n  </om:Observation></om:member>\n</om:ObservationCollection>\n"
        return text
    }

    @Test("SOS values out of bounds are rejected, the rows still delivered")
    func sosRejections() throws {
        let fields: [(name: String, unit: String)] = [
            ("sea_surface_wave_significant_height", "m"),
            ("sea_surface_wave_peak_period", "s"),
            ("sea_surface_wave_mean_period", "s"),
            ("sea_surface_wave_from_direction", "deg"),
            ("wind_speed", "m/s"),
            ("wind_from_direction", "deg"),
            ("wind_speed_of_gust", "m/s"),
            ("air_temperature", "Cel"),
            ("sea_water_temperature", "Cel"),
            ("air_pressure_at_sea_level", "hPa"),
        ]
        let rows = [
            "2024-03-01T00:00:00Z,2.1,12,8.4,290,7.5,300,9.1,11.2,12.8,1016.4",  // all good
            "2024-03-01T01:00:00Z,-0.5,12,8.4,290,7.5,300,9.1,11.2,12.8,1016.4",  // negative wave height
            "2024-03-01T02:00:00Z,2.1,180,8.4,290,7.5,300,9.1,11.2,12.8,1016.4",  // a period of minutes
            "2024-03-01T03:00:00Z,2.1,12,0,290,7.5,300,9.1,11.2,12.8,1016.4",  // period 0
            "2024-03-01T04:00:00Z,2.1,12,8.4,361,7.5,720,9.1,11.2,12.8,1016.4",  // directions past 360
            "2024-03-01T05:00:00Z,99,99,99,999,99,999,999,999,999,9999",  // NDBC's "missing" sentinels
            "2024-03-01T06:00:00Z,2.1,12,8.4,290,abc,300,nan,inf,12.8,0x10",  // not numbers
            "2024-03-01T07:00:00Z,,,,,,,,,,",  // all missing: not an observation
            "2024-03-01T08:00:00Z,31,,,,,,,,,",  // its only value rejected: still delivered
        ]
        let directory = try TemporaryDirectory()
        let file = try directory.file("bounds.xml", sosDocument(rows: rows, fields: fields))
        let result = try readAll(file)

        #expect(result.observations.count == 8)
        let good = BuoyObservationRecord(
            stationID: "46042",
            time: utc("2024-03-01T00:00:00Z"),
            waveHeight: 2.1,
            dominantPeriod: 12,
            averagePeriod: 8.4,
            meanWaveDirection: 290,
            windSpeed: 7.5,
            windDirection: 300,
            windGust: 9.1,
            airTemperature: 11.2,
            waterTemperature: 12.8,
            pressure: 1016.4
        )
        #expect(result.observations[0] == good)
        func expected(_ hour: Int, _ change: (inout BuoyObservationRecord) -> Void) -> BuoyObservationRecord {
            var record = good
            record.time = good.time.addingTimeInterval(Double(hour) * 3600)
            change(&record)
            return record
        }
        #expect(result.observations[1] == expected(1) { $0.waveHeight = nil })
        #expect(result.observations[2] == expected(2) { $0.dominantPeriod = nil })
        #expect(result.observations[3] == expected(3) { $0.averagePeriod = nil })
        #expect(result.observations[4] == expected(4) {
            $0.meanWaveDirection = nil
            $0.windDirection = nil
        })
        #expect(result.observations[5] == BuoyObservationRecord(stationID: "46042", time: utc("2024-03-01T05:00:00Z")))
        #expect(result.observations[6] == expected(6) {
            $0.windSpeed = nil
            $0.windGust = nil
            $0.airTemperature = nil
            $0.pressure = nil
        })
        #expect(result.observations[7] == BuoyObservationRecord(stationID: "46042", time: utc("2024-03-01T08:00:00Z")))
        #expect(!result.observations.contains { $0.time == utc("2024-03-01T07:00:00Z") })

        #expect(
            result.summary.rejectedValues == [
                "waveHeight below 0 m": 1,
                "waveHeight above 30 m": 2,
                "dominantPeriod above 30 s": 2,
                "averagePeriod below 1 s": 1,
                "averagePeriod above 30 s": 1,
                "meanWaveDirection above 360 deg": 2,
                "windDirection above 360 deg": 2,
                "windSpeed above 80 m/s": 1,
                "windSpeed not a number": 1,
                "windGust above 100 m/s": 1,
                "windGust not a number": 1,
                "airTemperature above 60 °C": 1,
                "airTemperature not a number": 1,
                "waterTemperature above 45 °C": 1,
                "pressure above 1090 hPa": 1,
                "pressure not a number": 1,
            ]
        )
        #expect(result.summary.rejectedRecords.isEmpty)
        #expect(result.summary.ignoredValues.isEmpty)
    }

    @Test("bounds apply after conversion: 160 knots of wind is too much, 100 °F of air is not")
    func boundsAfterConversion() throws {
        let fields: [(name: String, unit: String)] = [
            ("wind_speed", "kn"),
            ("air_temperature", "[degF]"),
            ("sea_surface_wave_significant_height", "cm"),
            ("wind_speed_of_gust", "psu"),
        ]
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "units.xml",
            sosDocument(rows: ["2024-03-01T00:00:00Z,100,100,250,12", "2024-03-01T01:00:00Z,160,150,3500,"], fields: fields)
        )
        let result = try readAll(file)
        let knots: Double = 100 * 1852 / 3600
        let fahrenheit: Double = (100 - 32) * 5 / 9
        #expect(result.observations.map(\.windSpeed) == [knots, nil])
        #expect(result.observations.map(\.airTemperature) == [fahrenheit, nil])
        #expect(result.observations.map(\.waveHeight) == [2.5, nil])
        #expect(result.observations.map(\.windGust) == [nil, nil])
        #expect(
            result.summary.rejectedValues == [
                "windSpeed above 80 m/s": 1,
                "airTemperature above 60 °C": 1,
                "waveHeight above 30 m": 1,
                "windGust in unsupported unit": 1,
            ]
        )
    }

    @Test("RSS values out of bounds are rejected, the item still delivered")
    func rssRejections() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "rss.xml",
            """
            <rss version="2.0"><channel><title>NDBC - Station 46042 - MONTEREY Observations</title><item>
            <description><![CDATA[
            <strong>March 1, 2024 4:00 pm PST</strong><br />
            <strong>Significant Wave Height:</strong> -2 ft<br />
            <strong>Dominant Wave Period:</strong> 45 sec<br />
            <strong>Mean Wave Direction:</strong> W (400&#176;)<br />
            <strong>Wind Speed:</strong> Calm<br />
            <strong>Wind Gust:</strong> 12 furlongs<br />
            <strong>Water Temperature:</strong> 55.2&#176;F (12.9&#176;C)<br />
            ]]></description>
            <guid>NDBC-46042-20240302000000</guid>
            </item></channel></rss>
            """
        )
        let result = try readAll(file)
        let water: Double = (55.2 - 32) * 5 / 9
        #expect(
            result.observations == [
                BuoyObservationRecord(stationID: "46042", time: utc("2024-03-02T00:00:00Z"), waterTemperature: water)
            ]
        )
        #expect(
            result.summary.rejectedValues == [
                "waveHeight below 0 m": 1,
                "dominantPeriod above 30 s": 1,
                "meanWaveDirection above 360 deg": 1,
                "windSpeed not a number": 1,
                "windGust in unsupported unit": 1,
            ]
        )
        #expect(result.stations == [BuoyStationRecord(stationID: "46042", name: "MONTEREY")])
    }
}
