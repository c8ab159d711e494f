public import Foundation

/// The statistics of the journal and the buoys (DESIGN §4), as written to JSON.
public struct SurfStatistics: Codable, Sendable, Equatable {
    public struct Location: Codable, Sendable, Equatable {
        public let location: String
        public let sessions: Int
        public let meanRating: Double?
        /// The mean of the journal's height entries (feet, as the surfer typed them).
        public let meanWaveHeight: Double?
        /// The month (1–12, UTC) with the best mean rating; ties go to the month with more sessions.
        public let bestMonth: Int?
    }

    public struct Summary: Codable, Sendable, Equatable {
        public let minimum: Double
        public let mean: Double
        public let maximum: Double

        public init(minimum: Double, mean: Double, maximum: Double) {
            self.minimum = minimum
            self.mean = mean
            self.maximum = maximum
        }
    }

    public struct Station: Codable, Sendable, Equatable {
        public let stationID: String
        public let name: String?
        public let observations: Int
        public let firstTime: Date?
        public let lastTime: Date?
        /// Significant wave height, m.
        public let waveHeight: Summary?
        /// Dominant wave period, s.
        public let dominantPeriod: Summary?
    }

    public let locations: [Location]
    public let stations: [Station]

    /// A short report for people.
    public var textReport: String {
        var lines = ["Surf journal: \(locations.reduce(0) { $0 + $1.sessions }) sessions at \(locations.count) locations"]
        for location in locations {
            var line = "  \(location.location): \(location.sessions) sessions"
            if let rating = location.meanRating { line += ", mean rating \(format(rating))" }
            if let height = location.meanWaveHeight { line += ", mean height \(format(height)) ft" }
            if let month = location.bestMonth { line += ", best month \(Self.monthNames[month - 1])" }
            lines.append(line)
        }
        lines.append("Buoys: \(stations.reduce(0) { $0 + $1.observations }) observations at \(stations.count) stations")
        for station in stations {
            var line = "  \(station.stationID)\(station.name.map { " (\($0))" } ?? ""): \(station.observations) observations"
            if let first = station.firstTime, let last = station.lastTime {
                line += ", \(first.ISO8601Format()) – \(last.ISO8601Format())"
            }
            if let height = station.waveHeight {
                line += ", wave height \(format(height.minimum))/\(format(height.mean))/\(format(height.maximum)) m"
            }
            if let period = station.dominantPeriod {
                line += ", period \(format(period.minimum))/\(format(period.mean))/\(format(period.maximum)) s"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    private func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
