public import BuoyXML
public import Foundation

/// A deterministic sequence of invented but realistic observations, for samples, tests and
/// benchmarks: the same seed, count and station count always give the same records.
///
/// The records are grouped by station (all of the first station, then all of the second, …),
/// every ``interval`` seconds from ``start``, as an SOS response lists them. Values follow
/// slow swells and daily cycles with noise, rounded as NDBC reports them (wave height to
/// 0.01 m, periods to 1 s and 0.1 s, directions to whole degrees, the rest to 0.1), so that
/// they survive a round trip through text exactly. A few values are missing on purpose (about
/// 3 % of gusts, 1 % of wave data and of air temperatures); wind speed is always present.
///
/// The stations are invented (``stations(count:)``): identifiers `LNP01`, `LNP02`, … that no
/// NDBC station uses, placed off the US Pacific coast.
public struct SampleObservations: Sequence, Hashable, Sendable {
    /// The seed of the random noise.
    public let seed: UInt64
    /// How many records the sequence holds.
    public let count: Int
    /// The stations the records belong to.
    public let stations: [BuoyStationRecord]

    /// The time of every station's first record: 2024-01-01T00:00:00Z.
    public static let start = Date(timeIntervalSince1970: 1_704_067_200)
    /// Seconds between two records of a station: half an hour.
    public static let interval: TimeInterval = 1800

    /// Creates the sequence of `count` records over `stations` stations.
    public init(seed: UInt64, count: Int, stations stationCount: Int = 3) {
        precondition(count >= 0 && stationCount > 0, "count must not be negative and there must be a station")
        self.seed = seed
        self.count = count
        self.stations = Self.stations(count: stationCount)
    }

    /// How many records the station at `index` of ``stations`` has.
    public func recordCount(ofStationAt index: Int) -> Int {
        count / stations.count + (index < count % stations.count ? 1 : 0)
    }

    /// The first and last record time of each station that has records.
    public var samplingTimes: [String: ClosedRange<Date>] {
        var times: [String: ClosedRange<Date>] = [:]
        for (index, station) in stations.enumerated() {
            let rows = recordCount(ofStationAt: index)
            guard rows > 0 else { continue }
            times[station.stationID] = Self.start...Self.start.addingTimeInterval(Double(rows - 1) * Self.interval)
        }
        return times
    }

    /// `count` invented stations, the same whatever the seed.
    public static func stations(count: Int) -> [BuoyStationRecord] {
        let places = [
            "Driftwood Bay", "Saltmarsh Point", "Kelpie Reef", "Grey Heron Banks",
            "Long Swell Shoal", "Whalebone Cove", "Tern Island", "Sandpiper Ledge", "Cormorant Rock",
        ]
        return (0..<count).map { index in
            let place = places[index % places.count]
            let distance = 8 + (index * 7) % 30
            return BuoyStationRecord(
                stationID: index < 99 ? "LNP\(index + 1 < 10 ? "0" : "")\(index + 1)" : "LN\(index + 1)",
                name: index < places.count
                    ? "\(place.uppercased()) - \(distance) NM West of \(place)" : "\(place.uppercased()) \(index / places.count + 1)",
                latitude: (34.5 + Double(index % places.count) * 1.3).rounded(toPlaces: 3),
                longitude: (-124.8 - Double(index) * 0.1 - Double(index / places.count)).rounded(toPlaces: 3),
                owner: "Lineup sample data (invented)",
                type: "buoy"
            )
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(samples: self)
    }

    /// Produces the records of a ``SampleObservations`` sequence.
    public struct Iterator: IteratorProtocol, Sendable {
        private let samples: SampleObservations
        private var random: SeededRandom
        private var stationIndex = 0
        private var row = 0
        private var phases: [Double] = []

        fileprivate init(samples: SampleObservations) {
            self.samples = samples
            self.random = SeededRandom(seed: samples.seed)
        }

        public mutating func next() -> BuoyObservationRecord? {
            while stationIndex < samples.stations.count, row >= samples.recordCount(ofStationAt: stationIndex) {
                stationIndex += 1
                row = 0
            }
            guard stationIndex < samples.stations.count else { return nil }
            if row == 0 {
                phases = (0..<6).map { _ in random.nextUnit() * 2 * .pi }
            }
            defer { row += 1 }
            let hours = Double(row) * SampleObservations.interval / 3600
            func cycle(_ periodHours: Double, _ phase: Int) -> Double {
                sin(2 * .pi * hours / periodHours + phases[phase])
            }
            func noise() -> Double {
                // Roughly normal, mean 0, deviation 0.5: the sum of three uniforms, centred.
                random.nextUnit() + random.nextUnit() + random.nextUnit() - 1.5
            }

            var record = BuoyObservationRecord(
                stationID: samples.stations[stationIndex].stationID,
                time: SampleObservations.start.addingTimeInterval(Double(row) * SampleObservations.interval)
            )
            let waveHeight = clamp(1.6 + 1.1 * cycle(108, 0) + 0.25 * noise(), 0.2, 8.5)
            let dominantPeriod = clamp(11 + 4 * cycle(144, 1) + 1.5 * noise(), 3, 22).rounded()
            let averagePeriod = clamp(dominantPeriod * 0.62 + 0.4 * noise(), 2.5, 15)
            let waveDirection = (275 + 30 * cycle(144, 1) + 10 * noise()).rounded()
            let windSpeed = clamp(6 + 4 * cycle(24, 2) + 1.5 * noise(), 0, 30)
            let windDirection = (300 + 40 * cycle(60, 3) + 20 * noise()).rounded()
            let gustFactor = 1.2 + 0.15 * random.nextUnit()
            let airTemperature = 14 + 3 * cycle(24, 4) + 0.5 * noise()
            let waterTemperature = 13.5 + 0.8 * cycle(400, 5) + 0.1 * noise()
            let pressure = 1014 + 8 * cycle(72, 3) + 0.8 * noise()
            let waveOutage = random.nextUnit() < 0.01
            let gustMissing = random.nextUnit() < 0.03
            let airMissing = random.nextUnit() < 0.01

            if !waveOutage {
                record.waveHeight = quantize(waveHeight, 100)
                record.dominantPeriod = dominantPeriod
                record.averagePeriod = quantize(averagePeriod, 10)
                record.meanWaveDirection = positiveDegrees(waveDirection)
            }
            let speed = quantize(windSpeed, 10)
            record.windSpeed = speed
            record.windDirection = positiveDegrees(windDirection)
            if !gustMissing {
                record.windGust = quantize(speed * gustFactor, 10)
            }
            if !airMissing {
                record.airTemperature = quantize(airTemperature, 10)
            }
            record.waterTemperature = quantize(waterTemperature, 10)
            record.pressure = quantize(pressure, 10)
            return record
        }

        private func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double {
            Swift.min(Swift.max(value, low), high)
        }

        /// The nearest multiple of 1/`steps`, computed as an integer over `steps` so that it is
        /// exactly the `Double` its decimal text parses to.
        private func quantize(_ value: Double, _ steps: Double) -> Double {
            (value * steps).rounded() / steps
        }

        private func positiveDegrees(_ value: Double) -> Double {
            let wrapped = value.truncatingRemainder(dividingBy: 360)
            return wrapped < 0 ? wrapped + 360 : wrapped
        }
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
