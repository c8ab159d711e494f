import Foundation
import LineupJobs
import LineupStore
import SurfJournal
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The statistics picture: what it draws, that it is a well-formed SVG with its units, and that
/// its labels keep apart whatever the data.
@Suite struct StatisticsChartTests {
    /// Buoys near Steamer Lane and near Waikiki measuring on 2024-01-05 (and the first on the 6th),
    /// and sessions on those days and others, at placed and unplaced locations.
    private func seeded() throws -> JournalFixture {
        let fixture = try JournalFixture()
        let context = fixture.container.newTaskContext(name: "seed")
        try context.performAndWait {
            func station(_ id: String, _ latitude: Double, _ longitude: Double) -> BuoyStation {
                let station = BuoyStation(context: context)
                station.stationID = id
                station.latitude = latitude
                station.longitude = longitude
                return station
            }
            let santaCruz = station("46284", 36.93, -122.03), oahu = station("51201", 21.67, -158.12)
            for (station, time, height, period) in [
                (santaCruz, "2024-01-05T08:00:00Z", 2.0, 12.0), (santaCruz, "2024-01-05T20:00:00Z", 3.0, 14.0),
                (santaCruz, "2024-01-06T08:00:00Z", 1.0, 10.0), (oahu, "2024-01-05T10:00:00Z", 1.0, 9.0),
            ] {
                let observation = BuoyObservation(context: context)
                observation.station = station
                observation.time = utc(time)
                observation.waveHeight = height
                observation.dominantPeriod = period
            }
            for (date, location, rating) in [
                ("2024-01-05T07:00:00Z", "Steamer Lane", 4), ("2024-01-05T16:00:00Z", "Steamer Lane", 5),
                ("2024-01-05T18:00:00Z", "Waikiki", 3), ("2024-02-01T09:00:00Z", "Steamer Lane", 2),
                ("2024-01-05T09:00:00Z", "Secret Spot", 5),
            ] {
                let entry = JournalEntry(context: context)
                entry.date = utc(date)
                entry.location = location
                entry.rating = rating
            }
            try context.save()
        }
        try fixture.container.flush()
        return fixture
    }

    @Test func sessionsMeetTheNearestBuoyOfTheirDay() throws {
        let fixture = try seeded()
        let context = fixture.container.newTaskContext(name: "chart")
        let data = try context.performAndWait { try StatisticsChartData.compute(in: context) }
        #expect(data.sessionDays.map(\.location) == ["Steamer Lane", "Waikiki"])
        let lane = try #require(data.sessionDays.first)
        #expect(lane.day == "2024-01-05" && lane.sessions == 2 && lane.meanRating == 4.5)
        #expect(lane.stationID == "46284" && lane.waveHeight == 2.5, "the Santa Cruz buoy's mean of that day")
        #expect(data.sessionDays.last?.stationID == "51201")
        #expect(data.unplacedLocations == ["Secret Spot"])
        #expect(data.stations.map(\.stationID) == ["46284", "51201"])
        #expect(data.stations[0].days.map(\.day) == ["2024-01-05", "2024-01-06"])
        #expect(data.stations[0].days[0].dominantPeriod == 13)
        let months = data.locationMonths.filter { $0.location == "Steamer Lane" }.map { [$0.month, $0.sessions] }
        #expect(months == [[1, 2], [2, 1]])
    }

    @Test func theStatisticsJobWritesThePictureBesideItsReport() throws {
        let fixture = try seeded()
        let outcome = try fixture.runSucceeding(#"{"kind": "statistics", "output": "stats.json"}"#)
        let picture = fixture.output.appendingPathComponent("stats.svg")
        #expect(outcome.outputs.contains(picture.path))
        let svg = try SVGSummary(contentsOf: picture)
        #expect(svg.sessionDots == 2, "one dot for each day a placed location's sessions met a buoy")
        for unit in ["wave height (m)", "period (s)", "mean rating", "day (UTC)", "significant wave height at the nearest buoy, daily mean (m)"] {
            #expect(svg.texts.contains { $0.text == unit }, "\(unit)")
        }
        #expect(svg.texts.contains { $0.text == "Not placed (no position known): Secret Spot" })
        #expect(svg.overlappingTexts().isEmpty, "\(svg.overlappingTexts())")
    }

    @Test func labelsKeepApartOnCrowdedData() throws {
        var stations: [StatisticsChartData.StationSeries] = []
        for number in 0..<15 {
            let days = (0..<400).map { day in
                (day: StatisticsChartTests.day(day), waveHeight: Optional(1 + Double((day * 7 + number) % 40) / 10), dominantPeriod: Optional(8.0 + Double(number)))
            }
            stations.append(StatisticsChartData.StationSeries(stationID: "STATION-WITH-A-LONG-NAME-\(number)", days: days))
        }
        let locations = (0..<25).map { "A location with a name far too long for any label column \($0)" }
        let months = locations.flatMap { location in
            (1...12).map { StatisticsChartData.LocationMonth(location: location, month: $0, sessions: 100 + $0, meanRating: Double($0 % 5) + 1) }
        }
        let sessions = locations.prefix(12).enumerated().map { index, location in
            StatisticsChartData.SessionDay(
                location: location, day: "2024-01-0\(index % 9 + 1)", sessions: index + 1, meanRating: 3, stationID: "X", waveHeight: Double(index) / 3)
        }
        let data = StatisticsChartData(stations: stations, locationMonths: months, sessionDays: sessions, unplacedLocations: locations)
        let svg = try SVGSummary(data: Data(StatisticsChart.svg(data).utf8))
        #expect(svg.overlappingTexts().isEmpty, "\(svg.overlappingTexts().prefix(5))")
        let outside = svg.texts.filter { $0.box.minX < 0 || $0.box.maxX > svg.width }
        #expect(outside.isEmpty, "every label inside the picture: \(outside.map { "\($0.text) \($0.box)" })")
    }

    @Test func anEmptyStoreGivesAPictureThatSaysSo() throws {
        let data = StatisticsChartData(stations: [], locationMonths: [], sessionDays: [], unplacedLocations: [])
        let svg = try SVGSummary(data: Data(StatisticsChart.svg(data).utf8))
        #expect(svg.texts.filter { $0.text.hasPrefix("No buoy observation") }.count == 2)
        #expect(svg.texts.contains { $0.text.hasPrefix("The journal has no session") })
        #expect(svg.texts.contains { $0.text.hasPrefix("No session falls on a day") })
    }

    @Test func textIsEscaped() throws {
        let data = StatisticsChartData(
            stations: [], locationMonths: [.init(location: "Tom & Jerry's <Point> \u{1}", month: 3, sessions: 1, meanRating: nil)],
            sessionDays: [], unplacedLocations: [])
        let svg = try SVGSummary(data: Data(StatisticsChart.svg(data).utf8))
        #expect(svg.texts.contains { $0.text == "Tom & Jerry's <Point> \u{FFFD}" })
    }

    static func day(_ offset: Int) -> String {
        let date = Date(timeIntervalSince1970: 1_704_067_200 + Double(offset) * 86_400)
        return String(date.ISO8601Format().prefix(10))
    }
}

/// The texts and shapes of an SVG document, read back with an XML parser (which fails on a
/// document that is not well-formed).
final class SVGSummary: NSObject, XMLParserDelegate {
    struct Text {
        let text: String
        let box: CGRect
    }

    private(set) var width = 0.0
    private(set) var texts: [Text] = []
    /// The scatter's dots (`class="session"`).
    private(set) var sessionDots = 0
    private var current: [String: String]?
    private var characters = ""

    convenience init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url))
    }

    init(data: Data) throws {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        guard parser.parse() else { throw SVGError(description: "not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")") }
    }

    struct SVGError: Error, CustomStringConvertible {
        let description: String
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "svg": width = Double(attributes["width"] ?? "") ?? 0
        case "circle" where attributes["class"] == "session": sessionDots += 1
        case "text":
            current = attributes
            characters = ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if current != nil { characters += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard name == "text", let attributes = current else { return }
        current = nil
        let x = Double(attributes["x"] ?? "") ?? 0, y = Double(attributes["y"] ?? "") ?? 0
        let size = Double(attributes["font-size"] ?? "") ?? 12
        // The same estimate the layout makes, with a margin: 0.62 of the size a glyph.
        let width = Double(characters.count) * size * 0.62
        var box: CGRect
        switch attributes["text-anchor"] {
        case "middle": box = CGRect(x: x - width / 2, y: y - size, width: width, height: size * 1.2)
        case "end": box = CGRect(x: x - width, y: y - size, width: width, height: size * 1.2)
        default: box = CGRect(x: x, y: y - size, width: width, height: size * 1.2)
        }
        if attributes["transform"]?.hasPrefix("rotate(-90") == true {
            box = CGRect(x: x - size, y: y - width / 2, width: size * 1.2, height: width)
        }
        texts.append(Text(text: characters, box: box))
    }

    /// Pairs of texts whose boxes overlap.
    func overlappingTexts() -> [(String, String)] {
        var pairs: [(String, String)] = []
        for (index, text) in texts.enumerated() {
            for other in texts[(index + 1)...] where text.box.intersects(other.box) {
                let overlap = text.box.intersection(other.box)
                if overlap.width > 0.5, overlap.height > 0.5 { pairs.append((text.text, other.text)) }
            }
        }
        return pairs
    }
}
