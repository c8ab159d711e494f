import BuoyXML
import Foundation
import Testing

/// The variations of NDBC `latest_obs` RSS items.
@Suite("RSS latest_obs")
struct RSSFormatTests {
    private func feed(channelTitle: String = "NDBC - Station 46042 - MONTEREY - 27NM WNW of Monterey, CA Observations", items: [String]) -> String {
        """
        <?xml version="1.0"?>
        <rss version="2.0" xmlns:georss="http://www.georss.org/georss">
          <channel>
            <title>\(channelTitle)</title>
            \(items.joined(separator: "\n"))
          </channel>
        </rss>
        """
    }

    @Test("line order does not matter; an absent line is nil; labels the model lacks are counted")
    func lineOrderAndMissingLines() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "feed.xml",
            feed(items: [
                """
                <item>
                  <title>Station 46042 - MONTEREY - 27NM WNW of Monterey, CA</title>
                  <description><![CDATA[
                    <strong>March 1, 2024 4:50 pm PST</strong><br />
                    <strong>Water Temperature:</strong> 55.2&#176;F (12.9&#176;C)<br />
                    <strong>Wave Height:</strong> 11.2 ft<br />
                    <strong>Swell Height:</strong> 9.8 ft<br />
                    <strong>Wind Direction:</strong> NW (310&#176;)<br />
                    <strong>Dominant Wave Period:</strong> 13 sec<br>
                    <STRONG>Wind Speed:</STRONG> 15.5 kts<BR/>
                    <strong>Visibility:</strong> 5 nmi<br />
                  ]]></description>
                  <guid isPermaLink="false">NDBC-46042-20240302005000</guid>
                  <georss:point>36.785 -122.396</georss:point>
                </item>
                """
            ])
        )
        let result = try readAll(file)
        let height: Double = 11.2 * 0.3048
        let speed: Double = 15.5 * 1852 / 3600
        let water: Double = (55.2 - 32) * 5 / 9
        #expect(
            result.observations == [
                BuoyObservationRecord(
                    stationID: "46042",
                    time: utc("2024-03-02T00:50:00Z"),
                    waveHeight: height,
                    dominantPeriod: 13,
                    windSpeed: speed,
                    windDirection: 310,
                    waterTemperature: water
                )
            ]
        )
        #expect(result.summary.ignoredValues == ["Swell Height": 1, "Visibility": 1])
        #expect(
            result.stations == [
                BuoyStationRecord(stationID: "46042", name: "MONTEREY - 27NM WNW of Monterey, CA", latitude: 36.785, longitude: -122.396)
            ]
        )
    }

    @Test("without a guid, the station comes from the title and the time from the date line's zone")
    func dateLineFallback() throws {
        let zones: [(line: String, utc: String)] = [
            ("January 15, 2024 6:50 am PST", "2024-01-15T14:50:00Z"),
            ("July 4, 2024 12:10 pm PDT", "2024-07-04T19:10:00Z"),
            ("July 4, 2024 12:10 am EDT", "2024-07-04T04:10:00Z"),
            ("February 27, 2022 5:20 am CST", "2022-02-27T11:20:00Z"),
            ("December 31, 2023 11:30 pm HST", "2024-01-01T09:30:00Z"),
            ("March 3, 2024 8:00 am AKST", "2024-03-03T17:00:00Z"),
            ("March 3, 2024 8:00 am AST", "2024-03-03T12:00:00Z"),
            ("Mar 3, 2024 17:00 UTC", "2024-03-03T17:00:00Z"),
        ]
        let directory = try TemporaryDirectory()
        for (index, zone) in zones.enumerated() {
            let file = try directory.file(
                "feed\(index).xml",
                feed(channelTitle: "NDBC - Observations near you", items: [
                    """
                    <item>
                      <title>Station 51201 - Waimea Bay, HI</title>
                      <description>&lt;strong&gt;\(zone.line)&lt;/strong&gt;&lt;br /&gt;
                      &lt;strong&gt;Significant Wave Height:&lt;/strong&gt; 6.6 ft&lt;br /&gt;</description>
                    </item>
                    """
                ])
            )
            let result = try readAll(file)
            #expect(result.observations.map(\.time) == [utc(zone.utc)], "\(zone.line)")
            #expect(result.observations.map(\.stationID) == ["51201"])
            #expect(result.stations.map(\.name) == ["Waimea Bay, HI"])
        }
    }

    @Test("the guid's UTC time wins over the date line")
    func guidWins() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "feed.xml",
            feed(items: [
                """
                <item><description><![CDATA[<strong>March 1, 2024 4:50 pm PST</strong><br />
                <strong>Wind Speed:</strong> 10 knots<br />]]></description>
                <guid>NDBC-46042-20240302004000</guid></item>
                """
            ])
        )
        #expect(try readAll(file).observations.map(\.time) == [utc("2024-03-02T00:40:00Z")])
    }

    @Test("several items (a search feed) give several stations; unusable items are counted")
    func severalItems() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file(
            "search.xml",
            feed(channelTitle: "NDBC - Station Search Results", items: [
                """
                <item><title>Station 46042 - MONTEREY</title>
                <description><![CDATA[<strong>Wind Speed:</strong> 10 knots<br />]]></description>
                <link>https://www.ndbc.noaa.gov/station_page.php?station=46042</link>
                <guid>NDBC-46042-20240302004000</guid></item>
                """,
                """
                <item><title>Station 46026 - SAN FRANCISCO</title>
                <description><![CDATA[<strong>Location:</strong> 37.754N 122.839W<br /><strong>Wind Speed:</strong> 12 knots<br />]]></description>
                <guid>NDBC-46026-20240302003000</guid></item>
                """,
                """
                <item><title>Station 46012 - HALF MOON BAY</title>
                <description><![CDATA[<strong>Location:</strong> 37.356N 122.881W<br /><strong>Tide:</strong> 2.1 ft<br />]]></description>
                <guid>NDBC-46012-20240302003000</guid></item>
                """,
                """
                <item><title>Latest news</title>
                <description><![CDATA[<strong>Wind Speed:</strong> 12 knots<br />]]></description></item>
                """,
                """
                <item><title>Station 46013 - BODEGA BAY</title>
                <description><![CDATA[<strong>Wind Speed:</strong> 12 knots<br />]]></description></item>
                """,
                """
                <item><title>Station 46014 - PT ARENA</title>
                <description><![CDATA[<strong>Wind Speed:</strong> 12 knots<br />]]></description>
                <guid>NDBC-46014-2024030200</guid></item>
                """,
            ])
        )
        let result = try readAll(file)
        #expect(result.observations.map(\.stationID) == ["46042", "46026"])
        #expect(
            result.stations == [
                BuoyStationRecord(stationID: "46042", name: "MONTEREY"),
                BuoyStationRecord(stationID: "46026", name: "SAN FRANCISCO", latitude: 37.754, longitude: -122.839),
            ]
        )
        // The tide-only item carries no surf value: counted as ignored, not delivered.
        #expect(result.summary.ignoredValues == ["Tide": 1])
        #expect(
            result.summary.rejectedRecords == [
                "record without station": 1,
                "record without time": 1,
                "record with unreadable time": 1,
            ]
        )
    }
}
