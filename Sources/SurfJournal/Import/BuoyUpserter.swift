import BuoyXML
import Foundation
import LineupStore

/// Writes buoy records into a context in chunks, upserting by natural key: stations by station
/// ID, observations by (station, time). Running it twice over the same records changes nothing
/// the second time, which is what makes a re-run import (after a crash or a retry) safe.
///
/// Every `chunkSize` records it saves into the parent and resets the context, so memory stays
/// flat whatever the input size. Use it on the context's queue. It sets the context's merge
/// policy: the records it saves win over what other imports saved meanwhile.
final class BuoyUpserter {
    struct Counts {
        var observationsInserted = 0
        var observationsUpdated = 0
        var observationsUnchanged = 0
        var stationsInserted = 0
        var stationsUpdated = 0
        var stationsUnchanged = 0
    }

    private let context: ManagedObjectContext
    private let chunkSize: Int
    private let afterChunk: (Int) throws -> Void
    private let checkCancellation: () throws -> Void
    private var observations: [BuoyObservationRecord] = []
    private var stations: [BuoyStationRecord] = []
    private(set) var counts = Counts()
    private(set) var recordsDone = 0

    /// - Parameters:
    ///   - afterChunk: called after each saved chunk with the number of records done (progress).
    ///   - checkCancellation: called every thousand records and before each chunk's save, so that
    ///     a shutdown does not wait for a whole chunk; throwing drops the unsaved part.
    init(
        context: ManagedObjectContext, chunkSize: Int, checkCancellation: @escaping () throws -> Void,
        afterChunk: @escaping (Int) throws -> Void
    ) {
        // A record is its source's word on its key. Where another import saved the same
        // observation or station since this context read it, this one's values win property by
        // property: a conflict would only fail the attempt, and its retry would write the same
        // values (the crash soak saw overlapping imports use up each other's attempts this way).
        // The same policy settles a station or an observation that another import inserted
        // since this one looked: this one's is merged into it, and the observations of a merged
        // station follow it (constraint conflicts, see `MergePolicy`).
        context.mergePolicy = .mergeByPropertyObjectTrump
        self.context = context
        self.chunkSize = chunkSize
        self.checkCancellation = checkCancellation
        self.afterChunk = afterChunk
    }

    func add(_ record: BuoyObservationRecord) throws {
        observations.append(record)
        try recordAdded()
    }

    func add(_ record: BuoyStationRecord) throws {
        stations.append(record)
        try recordAdded()
    }

    private func recordAdded() throws {
        let pending = observations.count + stations.count
        if pending % 1_000 == 0 { try checkCancellation() }
        if pending >= chunkSize { try saveChunk() }
    }

    func finish() throws {
        try saveChunk()
    }

    private func saveChunk() throws {
        guard !observations.isEmpty || !stations.isEmpty else { return }
        var stationsByID = try upsertStations(stations)
        try upsertObservations(observations, stations: &stationsByID)
        try checkCancellation()
        try context.save()
        context.reset()
        recordsDone += observations.count + stations.count
        observations.removeAll(keepingCapacity: true)
        stations.removeAll(keepingCapacity: true)
        try afterChunk(recordsDone)
    }

    private func upsertStations(_ records: [BuoyStationRecord]) throws -> [String: BuoyStation] {
        var existing = try fetchStations(Set(records.map(\.stationID)))
        for record in records {
            let station: BuoyStation
            if let found = existing[record.stationID] {
                station = found
            } else {
                station = BuoyStation(context: context)
                station.stationID = record.stationID
                existing[record.stationID] = station
            }
            // nil means "not in this file" (an RSS or SOS file names a station but says little of
            // it): keep what the catalogue said.
            if let name = record.name { station.name = name }
            if let latitude = record.latitude { station.latitude = latitude }
            if let longitude = record.longitude { station.longitude = longitude }
            if let owner = record.owner { station.owner = owner }
            if let type = record.type { station.stationType = type }
            if station.isInserted {
                counts.stationsInserted += 1
            } else if station.hasChanges {
                counts.stationsUpdated += 1
            } else {
                counts.stationsUnchanged += 1
            }
        }
        return existing
    }

    private func upsertObservations(_ records: [BuoyObservationRecord], stations: inout [String: BuoyStation]) throws {
        let missing = Set(records.map(\.stationID)).subtracting(stations.keys)
        stations.merge(try fetchStations(missing)) { current, _ in current }
        for stationID in missing where stations[stationID] == nil {
            // Observations of a station that is not in the catalogue yet: create it bare.
            let station = BuoyStation(context: context)
            station.stationID = stationID
            stations[stationID] = station
            counts.stationsInserted += 1
        }
        // By position, not by copy: a record is a few hundred bytes, and a chunk holds thousands.
        for (stationID, positions) in Dictionary(grouping: records.indices, by: { records[$0].stationID }) {
            let station = stations[stationID]!
            var byTime: [Date: BuoyObservation] = [:]
            if !station.isInserted {
                let request = FetchRequest<BuoyObservation>(
                    predicate: .refers(\.station, to: station.objectID) && .isIn(\.time, positions.map { Optional(records[$0].time) }))
                for observation in try context.fetch(request) {
                    if let time = observation.time { byTime[time] = observation }
                }
            }
            for position in positions {
                let record = records[position]
                let observation: BuoyObservation
                if let found = byTime[record.time] {
                    observation = found
                } else {
                    observation = BuoyObservation(context: context)
                    observation.station = station
                    observation.time = record.time
                    byTime[record.time] = observation
                }
                let wasChanged = observation.hasChanges
                observation.waveHeight = record.waveHeight
                observation.dominantPeriod = record.dominantPeriod
                observation.averagePeriod = record.averagePeriod
                observation.meanWaveDirection = record.meanWaveDirection
                observation.windSpeed = record.windSpeed
                observation.windDirection = record.windDirection
                observation.windGust = record.windGust
                observation.airTemperature = record.airTemperature
                observation.waterTemperature = record.waterTemperature
                observation.pressure = record.pressure
                if observation.isInserted {
                    counts.observationsInserted += 1
                } else if observation.hasChanges && !wasChanged {
                    counts.observationsUpdated += 1
                } else {
                    counts.observationsUnchanged += 1
                }
            }
        }
    }

    private func fetchStations(_ ids: Set<String>) throws -> [String: BuoyStation] {
        guard !ids.isEmpty else { return [:] }
        var result: [String: BuoyStation] = [:]
        for station in try context.fetch(FetchRequest<BuoyStation>(predicate: .isIn(\.stationID, ids.map { Optional($0) }))) {
            if let id = station.stationID { result[id] = station }
        }
        return result
    }
}
