import BuoyXML
import Foundation
import GRDBSQLite
import LineupStore
import SurfJournal
import LineupTestSupport

/// The store the export and statistics benchmarks read: made by `PersistentContainer` (so the
/// schema, indexes and metadata are Lineup's), closed, then filled through SQLite's C API —
/// `rows` JournalEntry rows from ``BenchRowGenerator`` and, optionally, the observations of a
/// `SampleObservations` sequence with their stations — and checkpointed. Filling it through the
/// stack would take minutes and is what the stack and import benchmarks measure already; the
/// rows are the same either way, and Lineup reopens the store as any store of its own (the next
/// primary key and version come from the tables).
struct JournalFixture {
    let rows: Int
    let observations: Int
    let stations: Int
    let observationSeed: UInt64

    /// Builds the store at `url`; returns how long it took.
    func build(at url: URL) throws -> UInt64 {
        let started = MonotonicClock.now()
        try PersistentContainer(url: url, model: SurfJournalModel.model, logger: BenchSupport.logger()).close()
        let database = try RawDatabase(path: url.path)
        // Building the input is not measured: no need to wait for the disk at every step.
        try database.execute("PRAGMA synchronous = OFF")
        try database.execute("BEGIN")
        try insertJournal(database)
        if observations > 0 {
            try insertObservations(database)
        }
        try database.execute("COMMIT")
        _ = try database.firstRow("PRAGMA wal_checkpoint(TRUNCATE)")
        return MonotonicClock.now() - started
    }

    private func insertJournal(_ database: RawDatabase) throws {
        let sql = """
            INSERT INTO "JournalEntry" (pk, _version, "date", "height", "period", "wind", "location", "rating")
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        let insert = try database.prepare(sql)
        defer { sqlite3_finalize(insert) }
        var generator = BenchRowGenerator()
        for index in 0..<rows {
            let row = generator.next()
            let key = Int64(index + 1)
            sqlite3_bind_int64(insert, 1, key)
            sqlite3_bind_int64(insert, 2, key)
            sqlite3_bind_double(insert, 3, row.date)
            sqlite3_bind_text(insert, 4, row.height, -1, sqliteTransient)
            sqlite3_bind_text(insert, 5, row.period, -1, sqliteTransient)
            sqlite3_bind_text(insert, 6, row.wind, -1, sqliteTransient)
            sqlite3_bind_text(insert, 7, row.location, -1, sqliteTransient)
            if let rating = row.rating {
                sqlite3_bind_int64(insert, 8, Int64(rating))
            } else {
                sqlite3_bind_null(insert, 8)
            }
            try step(insert, database, sql)
        }
    }

    private func insertObservations(_ database: RawDatabase) throws {
        let samples = SampleObservations(seed: observationSeed, count: observations, stations: stations)
        let stationSQL = """
            INSERT INTO "BuoyStation" (pk, _version, "stationID", "name", "latitude", "longitude", "owner", "type")
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        let insertStation = try database.prepare(stationSQL)
        defer { sqlite3_finalize(insertStation) }
        // Keys above the journal's, as one store's blocks of keys would be.
        var nextKey = Int64(rows) + 1
        var stationKeys: [String: Int64] = [:]
        for station in samples.stations {
            sqlite3_bind_int64(insertStation, 1, nextKey)
            sqlite3_bind_int64(insertStation, 2, nextKey)
            sqlite3_bind_text(insertStation, 3, station.stationID, -1, sqliteTransient)
            bind(station.name, insertStation, 4)
            bind(station.latitude, insertStation, 5)
            bind(station.longitude, insertStation, 6)
            bind(station.owner, insertStation, 7)
            bind(station.type, insertStation, 8)
            try step(insertStation, database, stationSQL)
            stationKeys[station.stationID] = nextKey
            nextKey += 1
        }
        let columns = ["pk", "_version", "station", "time"] + RawBuoyImportRun.valueColumns
        let sql = """
            INSERT INTO "BuoyObservation" (\(columns.map { "\"\($0)\"" }.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """
        let insert = try database.prepare(sql)
        defer { sqlite3_finalize(insert) }
        let properties: [BuoyObservationProperty] = [
            .waveHeight, .dominantPeriod, .averagePeriod, .meanWaveDirection, .waterTemperature, .windDirection,
            .windSpeed, .windGust, .airTemperature, .pressure,
        ]
        for record in samples {
            sqlite3_bind_int64(insert, 1, nextKey)
            sqlite3_bind_int64(insert, 2, nextKey)
            sqlite3_bind_int64(insert, 3, stationKeys[record.stationID]!)
            sqlite3_bind_double(insert, 4, record.time.timeIntervalSince1970)
            for (index, property) in properties.enumerated() {
                bind(record[property], insert, Int32(5 + index))
            }
            try step(insert, database, sql)
            nextKey += 1
        }
    }

    private func bind(_ value: String?, _ statement: OpaquePointer, _ index: Int32) {
        if let value {
            sqlite3_bind_text(statement, index, value, -1, sqliteTransient)
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    private func bind(_ value: Double?, _ statement: OpaquePointer, _ index: Int32) {
        if let value {
            sqlite3_bind_double(statement, index, value)
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    private func step(_ statement: OpaquePointer, _ database: RawDatabase, _ sql: String) throws {
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            try database.check(code, sql)
            throw BenchError(.sqlite, "\(database.path): INSERT returned \(code) instead of SQLITE_DONE")
        }
        sqlite3_reset(statement)
    }
}
