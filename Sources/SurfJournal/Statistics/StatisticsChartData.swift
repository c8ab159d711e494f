import Foundation
public import LineupStore

/// What the statistics picture draws, computed with SQL aggregates over the saved rows (a row
/// per station and day, per location and month, per location and day: small whatever the
/// number of observations).
public struct StatisticsChartData: Sendable, Equatable {
    /// A station's daily means.
    public struct StationSeries: Sendable, Equatable {
        public let stationID: String
        /// Days (UTC, `yyyy-MM-dd`) in order, with the day's mean significant wave height (m)
        /// and dominant period (s) where it has them.
        public let days: [(day: String, waveHeight: Double?, dominantPeriod: Double?)]

        public init(stationID: String, days: [(day: String, waveHeight: Double?, dominantPeriod: Double?)]) {
            self.stationID = stationID
            self.days = days
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.stationID == rhs.stationID && lhs.days.elementsEqual(rhs.days) { $0 == $1 }
        }
    }

    /// Sessions and mean rating of one location in one month of the year (1–12).
    public struct LocationMonth: Sendable, Equatable, Decodable {
        public let location: String
        public let month: Int
        public let sessions: Int
        public let meanRating: Double?

        public init(location: String, month: Int, sessions: Int, meanRating: Double?) {
            self.location = location
            self.month = month
            self.sessions = sessions
            self.meanRating = meanRating
        }
    }

    /// The sessions at a location on one day, beside the wave height its nearest buoy measured.
    public struct SessionDay: Sendable, Equatable {
        public let location: String
        public let day: String
        public let sessions: Int
        public let meanRating: Double?
        public let stationID: String
        /// The station's mean significant wave height that day, m.
        public let waveHeight: Double

        public init(location: String, day: String, sessions: Int, meanRating: Double?, stationID: String, waveHeight: Double) {
            self.location = location
            self.day = day
            self.sessions = sessions
            self.meanRating = meanRating
            self.stationID = stationID
            self.waveHeight = waveHeight
        }
    }

    public let stations: [StationSeries]
    public let locationMonths: [LocationMonth]
    public let sessionDays: [SessionDay]
    /// Locations with sessions whose position is not known, so no buoy is nearest to them.
    public let unplacedLocations: [String]

    public init(stations: [StationSeries], locationMonths: [LocationMonth], sessionDays: [SessionDay], unplacedLocations: [String]) {
        self.stations = stations
        self.locationMonths = locationMonths
        self.sessionDays = sessionDays
        self.unplacedLocations = unplacedLocations
    }

    /// Call on `context`'s queue. `spots` gives the positions of locations (see ``SurfSpots``).
    public static func compute(in context: ManagedObjectContext, spots: SurfSpots = .known) throws -> StatisticsChartData {
        try compute(in: context, spots: spots, locationMonths: StatisticsCalculator.locationMonths(in: context))
    }

    /// The picture's data, with the sessions per location and month computed already (the
    /// statistics task shares them with its report).
    static func compute(
        in context: ManagedObjectContext, spots: SurfSpots = .known, locationMonths: [LocationMonth]
    ) throws -> StatisticsChartData {
        let stationDays = try context.aggregate(
            AggregateRequest<BuoyObservation>(
                predicate: \.time != nil,
                groupBy: [.relationship(\.station, as: "station"), .day(of: \.time, as: "day")],
                aggregates: [.average(\.waveHeight, as: "height"), .average(\.dominantPeriod, as: "period")]))
        var stationsByKey: [Int64: BuoyStation?] = [:]
        func station(_ key: Int64) -> BuoyStation? {
            if let known = stationsByKey[key] { return known }
            let id = ObjectID(storeIdentifier: context.storeIdentifier, entityName: BuoyStation.entity.name, primaryKey: key)
            let found = try? context.existingObject(with: id) as? BuoyStation
            stationsByKey[key] = found
            return found
        }
        var series: [String: [(day: String, waveHeight: Double?, dominantPeriod: Double?)]] = [:]
        var heightsByDay: [String: [(station: BuoyStation, height: Double)]] = [:]
        for row in stationDays {
            guard case let .integer(key)? = row["station"], let day = row["day"].flatMap(String.init(storeValue:)) else { continue }
            let found = station(key)
            let stationID = found?.stationID ?? "#\(key)"
            let height = row["height"].flatMap(Double.init(storeValue:))
            series[stationID, default: []].append((day, height, row["period"].flatMap(Double.init(storeValue:))))
            if let found, let height { heightsByDay[day, default: []].append((found, height)) }
        }
        let stations = series.keys.sorted().map { id in
            StationSeries(stationID: id, days: series[id]!.sorted { $0.day < $1.day })
        }

        let days = try context.aggregate(
            AggregateRequest<JournalEntry>(
                predicate: \.location != nil && \.date != nil,
                groupBy: [.property(\.location, as: "location"), .day(of: \.date, as: "day")],
                aggregates: [.count(as: "sessions"), .average(\.rating, as: "meanRating")]))
        var sessionDays: [SessionDay] = []
        var unplaced: Set<String> = []
        for row in days {
            guard let location = row["location"].flatMap(String.init(storeValue:)),
                let day = row["day"].flatMap(String.init(storeValue:))
            else { continue }
            guard let position = spots.position(of: location) else {
                unplaced.insert(location)
                continue
            }
            let measured = (heightsByDay[day] ?? []).compactMap { entry -> (station: BuoyStation, height: Double, distance: Double)? in
                guard let latitude = entry.station.latitude, let longitude = entry.station.longitude else { return nil }
                return (entry.station, entry.height, SurfSpots.distance(position, (latitude, longitude)))
            }
            guard let nearest = measured.min(by: { $0.distance < $1.distance }) else { continue }
            sessionDays.append(
                SessionDay(
                    location: location, day: day, sessions: row["sessions"].flatMap(Int.init(storeValue:)) ?? 0,
                    meanRating: row["meanRating"].flatMap(Double.init(storeValue:)),
                    stationID: nearest.station.stationID ?? "?", waveHeight: nearest.height))
        }
        return StatisticsChartData(
            stations: stations, locationMonths: locationMonths, sessionDays: sessionDays, unplacedLocations: unplaced.sorted())
    }
}

/// Where surf spots are, to find the buoy nearest to a journal's location.
public struct SurfSpots: Sendable {
    /// Latitude and longitude in degrees, by location name as the journal spells it.
    public var positions: [String: (latitude: Double, longitude: Double)]

    public init(positions: [String: (latitude: Double, longitude: Double)]) {
        self.positions = positions
    }

    /// The spots of the SurfJournal sample app, and a few more of the world's best known.
    public static let known = SurfSpots(positions: [
        "Bells Beach": (-38.369, 144.282), "Blacks Beach": (32.888, -117.253), "C Street": (34.276, -119.300),
        "J-Bay": (-34.048, 24.931), "Malibu": (34.036, -118.678), "Margaret River": (-33.975, 114.985),
        "Rincon": (34.373, -119.478), "Teahupoo": (-17.869, -149.256), "Trestles": (33.382, -117.589),
        "Waikiki": (21.271, -157.830), "Steamer Lane": (36.951, -122.026), "Mavericks": (37.495, -122.497),
        "Pipeline": (21.665, -158.053), "Ocean Beach": (37.760, -122.511), "Linda Mar": (37.594, -122.504),
        "Pleasure Point": (36.957, -121.970), "Waddell Creek": (37.096, -122.279),
    ])

    func position(of location: String) -> (Double, Double)? {
        positions[location].map { ($0.latitude, $0.longitude) }
    }

    /// The great-circle distance in km.
    static func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let (lat1, lon1, lat2, lon2) = (a.0 * radians, a.1 * radians, b.0 * radians, b.1 * radians)
        let h = pow(sin((lat2 - lat1) / 2), 2) + cos(lat1) * cos(lat2) * pow(sin((lon2 - lon1) / 2), 2)
        return 2 * 6_371 * asin(min(1, sqrt(h)))
    }
}
