import Foundation

/// The statistics as a picture (SVG), in four panels: the daily mean wave height and period per
/// station, sessions and mean rating per location and month of the year, and the sessions
/// against the wave height their nearest buoy measured that day.
///
/// Axes carry their units; labels are placed from their estimated widths
/// (``SVGDocument/estimatedWidth(of:fontSize:)``), thinned out or cut short so that none
/// overlaps another, whatever the data.
public enum StatisticsChart: Sendable {
    static let width = 960.0
    static let left = 78.0
    static let legendWidth = 150.0
    static var plotWidth: Double { width - left - legendWidth - 16 }
    static let labelSize = 11.0
    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The SVG document of `data`.
    public static func svg(_ data: StatisticsChartData) -> String {
        var panels = Panels()
        panels.title("Surf statistics")
        panels.stationPanel(
            "Significant wave height, daily mean per station", unit: "wave height (m)", data.stations) { $0.waveHeight }
        panels.stationPanel(
            "Dominant wave period, daily mean per station", unit: "period (s)", data.stations) { $0.dominantPeriod }
        panels.heatmap(data.locationMonths)
        panels.scatter(data)
        return panels.document.text
    }

    /// Draws panels one under the other into a document tall enough for them.
    struct Panels {
        private var drawings: [(height: Double, draw: (inout SVGDocument, Double) -> Void)] = []

        var document: SVGDocument {
            var document = SVGDocument(width: StatisticsChart.width, height: drawings.reduce(12) { $0 + $1.height })
            var top = 0.0
            for drawing in drawings {
                drawing.draw(&document, top)
                top += drawing.height
            }
            return document
        }

        mutating func title(_ text: String) {
            drawings.append((40, { document, top in document.text(text, x: 16, y: top + 28, size: 18, weight: "bold") }))
        }

        mutating func stationPanel(
            _ title: String, unit: String, _ stations: [StatisticsChartData.StationSeries],
            value: @escaping ((day: String, waveHeight: Double?, dominantPeriod: Double?)) -> Double?
        ) {
            drawings.append((300, { document, top in
                StatisticsChart.lineChart(&document, top: top, title: title, unit: unit, stations: stations, value: value)
            }))
        }

        mutating func heatmap(_ months: [StatisticsChartData.LocationMonth]) {
            let rows = Set(months.map(\.location)).count
            drawings.append((max(120, 90 + Double(rows) * 26), { document, top in StatisticsChart.heatmap(&document, top: top, months) }))
        }

        mutating func scatter(_ data: StatisticsChartData) {
            drawings.append((320, { document, top in StatisticsChart.scatter(&document, top: top, data) }))
        }
    }

    // MARK: - Daily series

    static func lineChart(
        _ document: inout SVGDocument, top: Double, title: String, unit: String, stations: [StatisticsChartData.StationSeries],
        value: ((day: String, waveHeight: Double?, dominantPeriod: Double?)) -> Double?
    ) {
        document.text(title, x: 16, y: top + 22, size: 14, weight: "bold")
        let plotTop = top + 40, plotHeight = 200.0
        let points = stations.map { station in
            station.days.compactMap { entry in value(entry).flatMap { v in dayNumber(entry.day).map { ($0, v) } } }
        }
        let all = points.flatMap { $0 }
        guard let firstDay = all.map(\.0).min(), let lastDay = all.map(\.0).max(), let highest = all.map(\.1).max() else {
            document.text("No buoy observation has this value.", x: left, y: plotTop + 40, size: 12, fill: "#5b6475")
            return
        }
        let yTicks = niceTicks(from: 0, to: max(highest, 0.1), count: 5)
        let yMaximum = yTicks.last ?? highest
        let x = { (day: Int) -> Double in
            lastDay == firstDay ? left + plotWidth / 2 : left + plotWidth * Double(day - firstDay) / Double(lastDay - firstDay)
        }
        let y = { (v: Double) -> Double in plotTop + plotHeight - plotHeight * v / yMaximum }
        axes(&document, plotTop: plotTop, plotHeight: plotHeight, yTicks: yTicks, y: y, unit: unit)
        // Dates along the bottom, a whole number of days apart, as many as fit: two labels are at
        // least one and a half label widths apart, which leaves a gap whether each is centred on
        // its day or (at the ends) aligned inside the plot.
        let labelWidth = SVGDocument.estimatedWidth(of: "2000-00-00", fontSize: labelSize)
        let dayCount = lastDay - firstDay
        let step = dayCount == 0 ? 1 : max(1, Int((Double(dayCount) * (1.5 * labelWidth + 10) / plotWidth).rounded(.up)))
        for day in stride(from: firstDay, through: lastDay, by: step) {
            let anchor: SVGDocument.Anchor =
                dayCount == 0 ? .middle : day == firstDay ? .start : x(day) + labelWidth / 2 > left + plotWidth ? .end : .middle
            document.line(x1: x(day), y1: plotTop + plotHeight, x2: x(day), y2: plotTop + plotHeight + 4)
            document.text(dayText(day), x: x(day), y: plotTop + plotHeight + 18, size: labelSize, anchor: anchor)
        }
        document.text("day (UTC)", x: left + plotWidth / 2, y: plotTop + plotHeight + 36, size: labelSize, anchor: .middle, fill: "#5b6475")
        for (index, station) in stations.enumerated() where !points[index].isEmpty {
            let color = palette[index % palette.count]
            // A gap of more than two days is left open rather than bridged.
            var segments: [[(x: Double, y: Double)]] = [[]]
            var previous: Int?
            for (day, v) in points[index] {
                if let previous, day - previous > 2 { segments.append([]) }
                segments[segments.count - 1].append((x(day), y(v)))
                previous = day
            }
            document.path(segments, stroke: color)
            if points[index].count == 1 || segments.contains(where: { $0.count == 1 }) {
                for segment in segments where segment.count == 1 {
                    document.circle(x: segment[0].x, y: segment[0].y, radius: 2.5, fill: color)
                }
            }
            legendEntry(&document, index: index, top: plotTop, label: station.stationID, color: color)
        }
    }

    // MARK: - Locations by month

    static func heatmap(_ document: inout SVGDocument, top: Double, _ months: [StatisticsChartData.LocationMonth]) {
        document.text("Sessions (number) and mean rating (colour) per location and month of the year", x: 16, y: top + 22, size: 14, weight: "bold")
        let locations = Array(Set(months.map(\.location))).sorted()
        guard !locations.isEmpty else {
            document.text("The journal has no session with a location and a date.", x: left, y: top + 60, size: 12, fill: "#5b6475")
            return
        }
        let labelColumn = min(170, locations.map { SVGDocument.estimatedWidth(of: $0, fontSize: labelSize) }.max() ?? 0) + 8
        let gridLeft = 16 + labelColumn
        let cellWidth = (width - gridLeft - legendWidth - 16) / 12
        let cellHeight = 24.0
        let gridTop = top + 56
        for (month, name) in monthNames.enumerated() {
            document.text(name, x: gridLeft + cellWidth * (Double(month) + 0.5), y: gridTop - 8, size: labelSize, anchor: .middle)
        }
        let byCell = Dictionary(months.map { ("\($0.location)|\($0.month)", $0) }, uniquingKeysWith: { first, _ in first })
        let ratings = months.compactMap(\.meanRating)
        let lowest = min(1, ratings.min() ?? 1), highest = max(5, ratings.max() ?? 5)
        for (row, location) in locations.enumerated() {
            let rowTop = gridTop + Double(row) * (cellHeight + 2)
            document.text(
                SVGDocument.fitting(location, width: labelColumn - 8, fontSize: labelSize), x: gridLeft - 8, y: rowTop + 16,
                size: labelSize, anchor: .end)
            for month in 1...12 {
                let cellLeft = gridLeft + cellWidth * Double(month - 1)
                guard let cell = byCell["\(location)|\(month)"] else {
                    document.rectangle(x: cellLeft + 1, y: rowTop, width: cellWidth - 2, height: cellHeight, fill: "#f6f7f9")
                    continue
                }
                let fraction = cell.meanRating.map { ($0 - lowest) / max(0.001, highest - lowest) }
                let fill = fraction.map(ratingColor) ?? "#d9dde5"
                let rating = cell.meanRating.map { String(format: "%.2f", $0) } ?? "no rating"
                document.rectangle(
                    x: cellLeft + 1, y: rowTop, width: cellWidth - 2, height: cellHeight, fill: fill,
                    title: "\(location), \(monthNames[month - 1]): \(cell.sessions) sessions, mean rating \(rating)")
                document.text(
                    "\(cell.sessions)", x: cellLeft + cellWidth / 2, y: rowTop + 16, size: labelSize, anchor: .middle,
                    fill: (fraction ?? 0) > 0.55 ? "#ffffff" : "#1d2433")
            }
        }
        // The colour scale.
        let scaleLeft = width - legendWidth
        document.text("mean rating", x: scaleLeft, y: gridTop + 4, size: labelSize)
        for step in 0...4 {
            let fraction = Double(step) / 4
            let rating = lowest + (highest - lowest) * fraction
            document.rectangle(x: scaleLeft, y: gridTop + 14 + Double(step) * 20, width: 18, height: 16, fill: ratingColor(fraction))
            document.text(String(format: "%.1f", rating), x: scaleLeft + 26, y: gridTop + 27 + Double(step) * 20, size: labelSize)
        }
    }

    /// Pale to deep blue as the rating rises.
    static func ratingColor(_ fraction: Double) -> String {
        let clamped = min(1, max(0, fraction))
        let (r, g, b) = (222 - clamped * 214, 235 - clamped * 187, 247 - clamped * 140)
        return String(format: "#%02x%02x%02x", Int(r), Int(g), Int(b))
    }

    // MARK: - Sessions against the buoys

    static func scatter(_ document: inout SVGDocument, top: Double, _ data: StatisticsChartData) {
        document.text("Sessions against the wave height of the nearest buoy that day", x: 16, y: top + 22, size: 14, weight: "bold")
        let plotTop = top + 44, plotHeight = 200.0
        let days = data.sessionDays
        if !data.unplacedLocations.isEmpty {
            let line = "Not placed (no position known): " + data.unplacedLocations.joined(separator: ", ")
            document.text(
                SVGDocument.fitting(line, width: width - 32, fontSize: labelSize), x: 16, y: top + 298, size: labelSize, fill: "#5b6475")
        }
        guard let highest = days.map(\.waveHeight).max() else {
            document.text(
                "No session falls on a day with buoy data at a station of known position.", x: left, y: plotTop + 40, size: 12,
                fill: "#5b6475")
            return
        }
        let xTicks = niceTicks(from: 0, to: max(highest, 0.1), count: 6)
        let xMaximum = xTicks.last ?? highest
        let ratings = days.compactMap(\.meanRating)
        let yTicks = niceTicks(from: min(0, ratings.min() ?? 0), to: max(5, ratings.max() ?? 5), count: 5)
        let (yLow, yHigh) = (yTicks.first ?? 0, yTicks.last ?? 5)
        let x = { (v: Double) -> Double in left + plotWidth * v / xMaximum }
        let y = { (v: Double) -> Double in plotTop + plotHeight - plotHeight * (v - yLow) / max(0.001, yHigh - yLow) }
        axes(&document, plotTop: plotTop, plotHeight: plotHeight, yTicks: yTicks, y: y, unit: "mean rating")
        let labelWidth = xTicks.map { SVGDocument.estimatedWidth(of: tickText($0), fontSize: labelSize) }.max() ?? 0
        let every = max(1, Int(((labelWidth + 10) / (plotWidth / Double(max(1, xTicks.count - 1)))).rounded(.up)))
        for (index, tick) in xTicks.enumerated() where index % every == 0 {
            document.line(x1: x(tick), y1: plotTop + plotHeight, x2: x(tick), y2: plotTop + plotHeight + 4)
            document.text(tickText(tick), x: x(tick), y: plotTop + plotHeight + 18, size: labelSize, anchor: index == 0 ? .start : .middle)
        }
        document.text(
            "significant wave height at the nearest buoy, daily mean (m)", x: left + plotWidth / 2, y: plotTop + plotHeight + 36,
            size: labelSize, anchor: .middle, fill: "#5b6475")
        let locations = Array(Set(days.map(\.location))).sorted()
        for (index, location) in locations.enumerated() {
            let color = palette[index % palette.count]
            for day in days where day.location == location {
                guard let rating = day.meanRating else { continue }
                document.circle(
                    x: x(day.waveHeight), y: y(rating), radius: min(12, 3 + 2 * Double(day.sessions).squareRoot()), fill: color,
                    title: "\(location) \(day.day): \(day.sessions) sessions, rating \(String(format: "%.1f", rating)), \(day.stationID) \(String(format: "%.2f", day.waveHeight)) m",
                    className: "session")
            }
            legendEntry(&document, index: index, top: plotTop, label: location, color: color)
        }
    }

    // MARK: - Shared parts

    /// The frame, the y axis with its ticks and its title.
    static func axes(
        _ document: inout SVGDocument, plotTop: Double, plotHeight: Double, yTicks: [Double], y: (Double) -> Double, unit: String
    ) {
        for tick in yTicks {
            document.line(x1: left, y1: y(tick), x2: left + plotWidth, y2: y(tick), stroke: "#eceef2")
            document.text(tickText(tick), x: left - 6, y: y(tick) + 4, size: labelSize, anchor: .end)
        }
        document.line(x1: left, y1: plotTop, x2: left, y2: plotTop + plotHeight)
        document.line(x1: left, y1: plotTop + plotHeight, x2: left + plotWidth, y2: plotTop + plotHeight)
        document.text(unit, x: 18, y: plotTop + plotHeight / 2, size: labelSize, anchor: .middle, fill: "#5b6475", rotate: -90)
    }

    /// One line of a legend at the right of a plot; entries past the plot's height are left out
    /// rather than drawn over the next panel.
    static func legendEntry(_ document: inout SVGDocument, index: Int, top: Double, label: String, color: String) {
        guard index < 11 else { return }
        let rowTop = top + Double(index) * 18
        if index == 10 {
            document.text("…", x: width - legendWidth + 18, y: rowTop + 10, size: labelSize)
            return
        }
        document.rectangle(x: width - legendWidth, y: rowTop, width: 12, height: 12, fill: color)
        document.text(
            SVGDocument.fitting(label, width: legendWidth - 24, fontSize: labelSize), x: width - legendWidth + 18, y: rowTop + 10,
            size: labelSize)
    }

    /// About `count` round values from `low` to at least `high`.
    static func niceTicks(from low: Double, to high: Double, count: Int) -> [Double] {
        let span = max(high - low, 1e-9)
        let raw = span / Double(max(1, count - 1))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        let start = (low / step).rounded(.down) * step
        var ticks: [Double] = []
        var tick = start
        while tick < high + step * 0.999, ticks.count < 50 {
            ticks.append(tick)
            tick += step
        }
        return ticks
    }

    static func tickText(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// Days since 1970-01-01 of `yyyy-MM-dd`.
    static func dayNumber(_ text: String) -> Int? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3,
            let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
        else { return nil }
        return Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    static func dayText(_ day: Int) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(day) * 86_400))
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
