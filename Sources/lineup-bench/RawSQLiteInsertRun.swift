import Foundation
import GRDBSQLite

/// What the raw SQLite baseline measured.
struct RawInsertResult {
    let rows: Int
    /// From BEGIN until COMMIT returns.
    let elapsed: UInt64
    let residentAtStart: Int?
    let peakResident: Int?
    let path: String
    /// CPU time of the process during the insert.
    let cpuTime: UInt64

    var rowsPerSecond: Double { Double(rows) / MonotonicClock.seconds(elapsed) }
}

/// The baseline of the stack benchmark: the same rows written with SQLite's C API the fastest
/// plain way — one prepared INSERT, one transaction, bind + step + reset per row — into a table
/// of the same shape as Lineup's, with the same durability settings as Lineup's store (WAL,
/// `synchronous = FULL`).
struct RawSQLiteInsertRun {
    let rows: Int
    let directory: URL

    func run() throws -> RawInsertResult {
        let path = directory.appendingPathComponent("baseline.sqlite").path
        let residentAtStart = ProcessMemory.residentBytes()
        let database = try RawDatabase(path: path)
        let journalMode = try database.firstRow("PRAGMA journal_mode = WAL")
        guard journalMode == ["wal"] else {
            throw BenchError(.sqlite, "\(path): could not switch to WAL (journal_mode = \(journalMode))")
        }
        try database.execute("PRAGMA synchronous = FULL")
        try database.execute(
            """
            CREATE TABLE "BenchEntry" (pk INTEGER PRIMARY KEY, _version INTEGER NOT NULL, "date" REAL,
                "height" TEXT, "period" TEXT, "wind" TEXT, "location" TEXT, "rating" INTEGER)
            """)
        let insertSQL = """
            INSERT INTO "BenchEntry" (pk, _version, "date", "height", "period", "wind", "location", "rating")
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        let insert = try database.prepare(insertSQL)
        defer { sqlite3_finalize(insert) }
        var generator = BenchRowGenerator()

        let cpuAtStart = ProcessCPU.usedNanoseconds()
        let started = MonotonicClock.now()
        try database.execute("BEGIN")
        for index in 0..<rows {
            let row = generator.next()
            let key = Int64(index + 1)
            sqlite3_bind_int64(insert, 1, key)
            sqlite3_bind_int64(insert, 2, key)
            sqlite3_bind_double(insert, 3, row.date)
            bindText(row.height, insert, 4)
            bindText(row.period, insert, 5)
            bindText(row.wind, insert, 6)
            bindText(row.location, insert, 7)
            if let rating = row.rating {
                sqlite3_bind_int64(insert, 8, Int64(rating))
            } else {
                sqlite3_bind_null(insert, 8)
            }
            let code = sqlite3_step(insert)
            guard code == SQLITE_DONE else {
                try database.check(code, insertSQL)
                throw BenchError(.sqlite, "\(path): INSERT returned \(code) instead of SQLITE_DONE")
            }
            sqlite3_reset(insert)
        }
        try database.execute("COMMIT")
        let elapsed = MonotonicClock.now() - started
        let cpuTime = ProcessCPU.usedNanoseconds() - cpuAtStart
        let peakResident = ProcessMemory.peakResidentBytes()

        let stored = try database.firstRow(#"SELECT count(*) FROM "BenchEntry""#)
        guard stored == [String(rows)] else {
            throw BenchError(.verification, "\(path) holds \(stored.first ?? "?") rows after the baseline, expected \(rows)")
        }
        return RawInsertResult(
            rows: rows, elapsed: elapsed, residentAtStart: residentAtStart, peakResident: peakResident, path: path,
            cpuTime: cpuTime)
    }

    private func bindText(_ text: String, _ statement: OpaquePointer, _ index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(bytes.count), sqliteTransient)
        }
    }
}
