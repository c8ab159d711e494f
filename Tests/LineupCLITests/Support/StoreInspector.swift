import Foundation
import GRDB

/// Reads a daemon's store from outside, with its own read-only SQLite connection: what is on
/// disk (the database file and its WAL), not what a daemon holds in memory.
///
/// The schema is the one LineupStore writes: a table per entity, to-one relationships as the
/// destination's `pk`.
struct StoreInspector {
    let url: URL

    /// Observations per station ID.
    func observationCounts() throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.stationID AS station, COUNT(*) AS n FROM BuoyObservation o
                    JOIN BuoyStation s ON s.pk = o.station GROUP BY s.stationID
                    """)
            for row in rows {
                counts[row["station"] as String] = row["n"] as Int
            }
            return counts
        }
    }

    /// All observations, whatever their station.
    func observationCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM BuoyObservation") ?? 0 }
    }

    /// Station rows per station ID (more than 1 would be a duplicate).
    func stationRowCounts() throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT stationID, COUNT(*) AS n FROM BuoyStation GROUP BY stationID") {
                counts[(row["stationID"] as String?) ?? "<null>"] = row["n"] as Int
            }
            return counts
        }
    }

    /// (station, time) keys held by more than one observation row.
    func duplicateObservationKeys() throws -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM (SELECT station, time FROM BuoyObservation GROUP BY station, time HAVING COUNT(*) > 1)"
            ) ?? 0
        }
    }

    /// Observations whose station reference points at no station.
    func orphanObservations() throws -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM BuoyObservation o LEFT JOIN BuoyStation s ON s.pk = o.station WHERE s.pk IS NULL"
            ) ?? 0
        }
    }

    /// `PRAGMA integrity_check`: "ok", or the problems found.
    func integrityCheck() throws -> String {
        try read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw HarnessError("no store at \(url.path)")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "LineupCLITests.StoreInspector"
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }
}
