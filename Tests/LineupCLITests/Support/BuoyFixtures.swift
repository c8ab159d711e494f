import BuoyXML
import Foundation
import LineupTestSupport

/// Buoy XML inputs for the daemon: the samples the project ships, and SOS documents written
/// here with BuoyXML's own writer, whose (station, time) keys are known.
enum BuoyFixtures {
    /// The repository's `samples/` directory.
    static let samplesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // LineupCLITests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .appending(path: "samples", directoryHint: .isDirectory)

    /// `samples/ndbc-sos-waves-sample.xml`: 300 observations of LNP01–LNP03 (100 each).
    static let sosSample = samplesDirectory.appending(path: "ndbc-sos-waves-sample.xml")

    /// Copies a sample into `directory` under its own name.
    @discardableResult
    static func copySample(_ sample: URL, into directory: URL, as name: String? = nil) throws -> URL {
        let destination = directory.appending(path: name ?? sample.lastPathComponent)
        try FileManager.default.copyItem(at: sample, to: destination)
        return destination
    }

    /// `count` half-hourly observations of one station, from `SampleObservations` (values
    /// from `seed`), renamed to `station` and starting `offset` intervals after the samples'
    /// start.
    static func records(station: String, seed: UInt64, count: Int, offset: Int = 0) -> [BuoyObservationRecord] {
        SampleObservations(seed: seed, count: count, stations: 1).map { record in
            var record = record
            record.stationID = station
            record.time = record.time.addingTimeInterval(Double(offset) * SampleObservations.interval)
            return record
        }
    }

    /// Writes `records` as an SOS document.
    static func writeSOS(_ records: [BuoyObservationRecord], to url: URL) throws {
        try SOSDocumentWriter.write(records, to: url)
    }

    /// The distinct (station, time) keys of `records`, counted per station.
    static func distinctKeysPerStation(_ records: some Sequence<BuoyObservationRecord>) -> [String: Int] {
        var keys: [String: Set<Date>] = [:]
        for record in records {
            keys[record.stationID, default: []].insert(record.time)
        }
        return keys.mapValues(\.count)
    }
}
