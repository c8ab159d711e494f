import Foundation
import GRDBSQLite
import LineupTestSupport

/// What the import baseline measured.
struct RawImportResult {
    let rows: Int
    let stations: Int
    /// From opening the XML file until COMMIT returned.
    let elapsed: UInt64

    var rowsPerSecond: Double { Double(rows) / MonotonicClock.seconds(elapsed) }
}

/// The import benchmark's baseline: the rows of the SOS document read with a minimal libxml2
/// SAX2 parse (``MinimalSOSParser``) and written with SQLite's C API, one prepared INSERT in one
/// transaction, into a store that Lineup created (so that tables, indexes — the unique
/// (station, time) index included — and settings are Lineup's own): WAL, `synchronous = FULL`.
/// A station row is inserted the first time its station appears.
struct RawBuoyImportRun {
    let input: URL
    /// An empty store made by `PersistentContainer` and closed again.
    let storePath: String
    /// False for the parse alone (the breakdown row): no store is opened and nothing is stored.
    let insert: Bool

    /// The value columns of a row, in the order `SOSDocumentWriter` writes them.
    static let valueColumns = [
        "waveHeight", "dominantPeriod", "averagePeriod", "meanWaveDirection", "waterTemperature", "windDirection",
        "windSpeed", "windGust", "airTemperature", "pressure",
    ]
    /// The CF field is the direction the waves go to; the model keeps where they come from.
    private static let reversedColumn = 3

    func run() throws -> RawImportResult {
        guard insert else { return try parseOnly() }
        let database = try RawDatabase(path: storePath)
        let journalMode = try database.firstRow("PRAGMA journal_mode = WAL")
        guard journalMode == ["wal"] else {
            throw BenchError(.sqlite, "\(storePath): could not switch to WAL (journal_mode = \(journalMode))")
        }
        try database.execute("PRAGMA synchronous = FULL")
        let observationColumns = ["pk", "_version", "station", "time"] + Self.valueColumns
        let known = Set(try database.columns(of: "BuoyObservation"))
        guard Set(observationColumns).isSubset(of: known) else {
            throw BenchError(.verification, "\(storePath): BuoyObservation lacks \(Set(observationColumns).subtracting(known).sorted())")
        }
        let observationSQL = """
            INSERT INTO "BuoyObservation" (\(observationColumns.map { "\"\($0)\"" }.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: observationColumns.count).joined(separator: ", ")))
            """
        let stationSQL = #"INSERT INTO "BuoyStation" (pk, _version, "stationID") VALUES (?, ?, ?)"#
        let insertObservation = try database.prepare(observationSQL)
        defer { sqlite3_finalize(insertObservation) }
        let insertStation = try database.prepare(stationSQL)
        defer { sqlite3_finalize(insertStation) }

        var stationKeys: [Substring: Int64] = [:]
        var nextKey: Int64 = 1
        var rows = 0
        let started = MonotonicClock.now()
        try database.execute("BEGIN")
        let parser = MinimalSOSParser { row in
            let station: Int64
            if let known = stationKeys[row.stationID] {
                station = known
            } else {
                station = nextKey
                nextKey += 1
                stationKeys[row.stationID] = station
                sqlite3_bind_int64(insertStation, 1, station)
                sqlite3_bind_int64(insertStation, 2, station)
                let id = String(row.stationID)
                sqlite3_bind_text(insertStation, 3, id, -1, sqliteTransient)
                try step(insertStation, database, stationSQL)
            }
            let key = nextKey
            nextKey += 1
            sqlite3_bind_int64(insertObservation, 1, key)
            sqlite3_bind_int64(insertObservation, 2, key)
            sqlite3_bind_int64(insertObservation, 3, station)
            sqlite3_bind_double(insertObservation, 4, row.time)
            for (index, value) in row.values.enumerated() {
                let parameter = Int32(5 + index)
                if value.isNaN {
                    sqlite3_bind_null(insertObservation, parameter)
                } else if index == Self.reversedColumn {
                    sqlite3_bind_double(insertObservation, parameter, (value + 180).truncatingRemainder(dividingBy: 360))
                } else {
                    sqlite3_bind_double(insertObservation, parameter, value)
                }
            }
            try step(insertObservation, database, observationSQL)
            rows += 1
        }
        try parser.parse(path: input.path)
        try database.execute("COMMIT")
        let elapsed = MonotonicClock.now() - started
        return RawImportResult(rows: rows, stations: stationKeys.count, elapsed: elapsed)
    }

    /// The same parse with nothing stored: what the parse alone costs.
    private func parseOnly() throws -> RawImportResult {
        var rows = 0
        var stations: Set<Substring> = []
        let started = MonotonicClock.now()
        let parser = MinimalSOSParser { row in
            if !stations.contains(row.stationID) { stations.insert(row.stationID) }
            rows += 1
        }
        try parser.parse(path: input.path)
        return RawImportResult(rows: rows, stations: stations.count, elapsed: MonotonicClock.now() - started)
    }

    private func step(_ statement: OpaquePointer, _ database: RawDatabase, _ sql: String) throws {
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            try database.check(code, sql)
            throw BenchError(.sqlite, "\(storePath): INSERT returned \(code) instead of SQLITE_DONE")
        }
        sqlite3_reset(statement)
    }
}
