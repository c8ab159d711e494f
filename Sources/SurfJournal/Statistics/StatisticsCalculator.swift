import Foundation
public import LineupStore

/// Computes ``SurfStatistics`` with SQL aggregates over the saved rows.
public enum StatisticsCalculator: Sendable {
    /// Call on `context`'s queue.
    public static func compute(in context: ManagedObjectContext) throws -> SurfStatistics {
        try compute(in: context, months: locationMonths(in: context))
    }

    /// The statistics, with the sessions per location and month computed already (the
    /// statistics task shares them with its picture).
    static func compute(in context: ManagedObjectContext, months: [StatisticsChartData.LocationMonth]) throws -> SurfStatistics {
        SurfStatistics(locations: try locations(in: context, months: months), stations: try stations(in: context))
    }

    /// Sessions and mean rating per location and month of the year (UTC).
    static func locationMonths(in context: ManagedObjectContext) throws -> [StatisticsChartData.LocationMonth] {
        try context.aggregate(
            AggregateRequest<JournalEntry>(
                predicate: \.location != nil && \.date != nil,
                groupBy: [.property(\.location, as: "location"), .month(of: \.date, as: "month")],
                aggregates: [.count(as: "sessions"), .average(\.rating, as: "meanRating")]),
            as: StatisticsChartData.LocationMonth.self)
    }

    /// One location's sessions and means, as ``locations(in:months:)``'s aggregate names them.
    private struct LocationRow: Decodable {
        var location: String
        var sessions: Int
        var meanRating: Double?
        var meanHeight: Double?
    }

    private static func locations(
        in context: ManagedObjectContext, months: [StatisticsChartData.LocationMonth]
    ) throws -> [SurfStatistics.Location] {
        let perLocation = try context.aggregate(
            AggregateRequest<JournalEntry>(
                predicate: \.location != nil,
                groupBy: [.property(\.location, as: "location")],
                aggregates: [
                    .count(as: "sessions"), .average(\.rating, as: "meanRating"), .average(\.height, as: "meanHeight"),
                ]),
            as: LocationRow.self)
        var bestMonths: [String: (month: Int, rating: Double, sessions: Int)] = [:]
        for entry in months {
            guard let rating = entry.meanRating else { continue }
            if let best = bestMonths[entry.location], (best.rating, best.sessions) >= (rating, entry.sessions) { continue }
            bestMonths[entry.location] = (entry.month, rating, entry.sessions)
        }
        return perLocation.map { row in
            SurfStatistics.Location(
                location: row.location, sessions: row.sessions, meanRating: row.meanRating, meanWaveHeight: row.meanHeight,
                bestMonth: bestMonths[row.location]?.month)
        }
    }

    private static func stations(in context: ManagedObjectContext) throws -> [SurfStatistics.Station] {
        let rows = try context.aggregate(
            AggregateRequest<BuoyObservation>(
                predicate: \.time != nil,
                groupBy: [.relationship(\.station, as: "station")],
                aggregates: [
                    .count(as: "observations"), .minimum(\.time, as: "first"), .maximum(\.time, as: "last"),
                    .count(\.waveHeight, as: "heights"), .minimum(\.waveHeight, as: "minHeight"),
                    .average(\.waveHeight, as: "meanHeight"), .maximum(\.waveHeight, as: "maxHeight"),
                    .count(\.dominantPeriod, as: "periods"), .minimum(\.dominantPeriod, as: "minPeriod"),
                    .average(\.dominantPeriod, as: "meanPeriod"), .maximum(\.dominantPeriod, as: "maxPeriod"),
                ]))
        var result: [SurfStatistics.Station] = []
        for row in rows {
            guard case let .integer(key)? = row["station"] else { continue }
            let id = ObjectID(storeIdentifier: context.storeIdentifier, entityName: BuoyStation.entity.name, primaryKey: key)
            let station = try? context.existingObject(with: id) as? BuoyStation
            func summary(_ count: String, _ minimum: String, _ mean: String, _ maximum: String) -> SurfStatistics.Summary? {
                guard (row[count].flatMap(Int.init(storeValue:)) ?? 0) > 0,
                    let low = row[minimum].flatMap(Double.init(storeValue:)),
                    let average = row[mean].flatMap(Double.init(storeValue:)),
                    let high = row[maximum].flatMap(Double.init(storeValue:))
                else { return nil }
                return SurfStatistics.Summary(minimum: low, mean: average, maximum: high)
            }
            result.append(
                SurfStatistics.Station(
                    stationID: station?.stationID ?? "#\(key)", name: station?.name,
                    observations: row["observations"].flatMap(Int.init(storeValue:)) ?? 0,
                    firstTime: row["first"].flatMap(Date.init(storeValue:)),
                    lastTime: row["last"].flatMap(Date.init(storeValue:)),
                    waveHeight: summary("heights", "minHeight", "meanHeight", "maxHeight"),
                    dominantPeriod: summary("periods", "minPeriod", "meanPeriod", "maxPeriod")))
        }
        return result.sorted { $0.stationID < $1.stationID }
    }
}
