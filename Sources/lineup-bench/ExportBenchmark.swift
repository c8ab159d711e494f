import Foundation
import GRDBSQLite
import LineupJobs
import LineupSpool
import LineupStore
import SurfJournal

/// `lineup-bench export`: the CSV export beside the `sqlite3` command-line tool (issue 4).
///
/// 1. Input: a store of `--rows` JournalEntry rows (``JournalFixture``: made by Lineup, filled
///    with raw SQL).
/// 2. Lineup: the real `export-csv` task (ExportCSVTask) writing journal.csv, in the foreground
///    as `lineup run` does; peak RSS of the process during it (VmHWM reset just before).
/// 3. Baseline: `sqlite3 -csv -header store.sqlite "SELECT …"` into a file, with the date
///    formatted as ISO-8601 by `strftime` so that both sides format every date, the same
///    column order and the same ORDER BY as Lineup's query, then fsync of the file (Lineup's
///    writer fsyncs too).
/// 4. The two files must hold the same rows in the same order (quoting and line ends aside).
struct ExportBenchmark {
    static let ratioTarget = 0.8
    static let peakResidentTarget = 100_000_000
    /// Rounds of each side, alternating; the best time of each is compared.
    static let rounds = 3

    /// Lineup's columns, in its order; the date as CSVWriter writes whole seconds.
    static let baselineSelect = """
        SELECT strftime('%Y-%m-%dT%H:%M:%SZ', "date", 'unixepoch') AS "date", "location", "rating", "height", "period", "wind" \
        FROM "JournalEntry"
        """

    let options: BenchOptions

    func run() throws -> ResultTable {
        let loadBefore = ProcessCPU.loadDescription()
        let directory = try BenchSupport.makeWorkDirectory(options, name: "export")
        defer { BenchSupport.finish(directory, options, name: "export") }
        let outputDirectory = try BenchSupport.makeDirectory(directory.appendingPathComponent("output", isDirectory: true))
        let store = directory.appendingPathComponent("store.sqlite")

        progress("export: building a store of \(Format.grouped(options.rows)) JournalEntry rows (raw SQL into a Lineup store) …")
        let buildTime = try JournalFixture(rows: options.rows, observations: 0, stations: options.stations, observationSeed: 0)
            .build(at: store)

        let container = try PersistentContainer(url: store, model: SurfJournalModel.model, logger: BenchSupport.logger())
        let job = SurfJobRun(container: container, inputDirectory: outputDirectory, outputDirectory: outputDirectory)
        let lineupFile = outputDirectory.appendingPathComponent("journal.csv")
        let baselineFile = directory.appendingPathComponent("baseline.csv")
        let baselineArguments = ["-csv", "-header", store.path, Self.baselineSelect + #" ORDER BY "date" DESC, pk ASC"#]
        var lineupTimes: [UInt64] = []
        var baselineTimes: [UInt64] = []
        var peakResident: Int?
        var residentBefore: Int?
        var lineupCPU: UInt64 = 0
        for round in 1...Self.rounds {
            progress("export: round \(round) of \(Self.rounds): Lineup export-csv task, then sqlite3 -csv …")
            residentBefore = ProcessMemory.residentBytes()
            let peakWasReset = ProcessMemory.resetPeak()
            let cpuAtStart = ProcessCPU.usedNanoseconds()
            let lineup = try job.run(
                kind: ExportCSVTask.kind, parameters: ["entity": .string("JournalEntry"), "output": .string("journal.csv")])
            lineupCPU = ProcessCPU.usedNanoseconds() - cpuAtStart
            if peakWasReset, let peak = ProcessMemory.peakResidentBytes() { peakResident = max(peakResident ?? 0, peak) }
            guard lineup.outcome.counts["rows"] == options.rows else {
                throw BenchError(
                    .verification, "export-csv wrote \(lineup.outcome.counts["rows"].map(String.init) ?? "?") rows, expected \(options.rows)")
            }
            lineupTimes.append(lineup.elapsed)
            baselineTimes.append(try SQLiteShell.run(baselineArguments, output: baselineFile).elapsed)
        }

        progress("export: breakdown, the same read without CSV (Lineup's enumerateObjectValues, then SQLite's C API) …")
        let lineupRead = try readThroughLineup(container)
        try container.close()
        let rawRead = try readThroughCAPI(store.path)
        guard lineupRead.rows == options.rows, rawRead.rows == options.rows else {
            throw BenchError(.verification, "the reads gave \(lineupRead.rows) and \(rawRead.rows) rows, expected \(options.rows)")
        }
        // ORDER BY the column, not the alias: SQLite then walks the date index as Lineup's fetch does.
        let indexFile = directory.appendingPathComponent("baseline-index-order.csv")
        let indexOrder = try SQLiteShell.run(
            ["-csv", "-header", store.path, Self.baselineSelect + #" ORDER BY "JournalEntry"."date" DESC, pk ASC"#],
            output: indexFile)
        guard try sameRows(baselineFile, indexFile) else {
            throw BenchError(.verification, "\(indexFile.path) holds other rows than \(baselineFile.path)")
        }
        try? FileManager.default.removeItem(at: indexFile)
        let lineupBest = lineupTimes.min()!
        let baselineBest = baselineTimes.min()!

        let lineupBytes = try fileSize(lineupFile)
        let baselineBytes = try fileSize(baselineFile)
        guard try sameRows(lineupFile, baselineFile) else {
            throw BenchError(
                .verification,
                "\(lineupFile.path) (\(lineupBytes) bytes) and \(baselineFile.path) (\(baselineBytes) bytes) hold different rows (run with --keep to compare them)")
        }

        var table = ResultTable()
        let lineupRate = Double(options.rows) / MonotonicClock.seconds(lineupBest)
        let baselineRate = Double(options.rows) / MonotonicClock.seconds(baselineBest)
        let ratio = lineupRate / baselineRate
        table.rows.append(
            .init(
                benchmark: "export.csv",
                lineup: "\(Format.groupedRate(lineupRate)) (\(Format.seconds(lineupBest)))",
                baseline: "\(Format.groupedRate(baselineRate)) (\(Format.seconds(baselineBest)))",
                ratio: Format.ratio(ratio), target: "ratio >= \(Self.ratioTarget)",
                verdict: BenchSupport.verdict(ratio >= Self.ratioTarget)))
        table.rows.append(
            .init(
                benchmark: "export.rss",
                lineup: "peak \(Format.megabytes(peakResident)) (\(Format.megabytes(residentBefore)) before)",
                baseline: "-", ratio: "-", target: "peak < \(Self.peakResidentTarget / 1_000_000)MB",
                verdict: peakResident.map { BenchSupport.verdict($0 < Self.peakResidentTarget) } ?? "n/a"))
        let indexRate = Double(options.rows) / MonotonicClock.seconds(indexOrder.elapsed)
        table.rows.append(
            .init(
                benchmark: "  sqlite3 walking the date index", lineup: "-",
                baseline: "\(Format.groupedRate(indexRate)) (\(Format.seconds(indexOrder.elapsed)))",
                ratio: Format.ratio(lineupRate / indexRate), target: "(Lineup's plan)", verdict: ""))
        let lineupReadRate = Double(options.rows) / MonotonicClock.seconds(lineupRead.elapsed)
        let rawReadRate = Double(options.rows) / MonotonicClock.seconds(rawRead.elapsed)
        table.rows.append(
            .init(
                benchmark: "  read only: enumerateObjectValues / C API",
                lineup: "\(Format.groupedRate(lineupReadRate)) (\(Format.seconds(lineupRead.elapsed)))",
                baseline: "\(Format.groupedRate(rawReadRate)) (\(Format.seconds(rawRead.elapsed)))",
                ratio: Format.ratio(lineupReadRate / rawReadRate), target: "(breakdown)", verdict: ""))
        table.results.append(
            "RESULT export.csv lineup=\(Format.rate(lineupRate))/s baseline=\(Format.rate(baselineRate))/s ratio=\(Format.ratio(ratio))")
        table.results.append("RESULT export.rss peak=\(Format.megabytes(peakResident))")
        table.notes = [
            "export: a store of \(Format.grouped(options.rows)) JournalEntry rows (BenchRowGenerator, seed \(String(BenchRowGenerator.defaultSeed, radix: 16))), made by PersistentContainer and filled with raw prepared INSERTs (not through the stack; \(Format.seconds(buildTime))), checkpointed; the OS cache is warm for both sides. Output: \(Format.grouped(lineupBytes)) bytes from Lineup, \(Format.grouped(baselineBytes)) from sqlite3 (it quotes every text with a space and ends lines with LF, Lineup CRLF); the same rows in the same order (compared).",
            "Lineup: the export-csv task (ExportCSVTask from SurfJournalJobs.registry, entity JournalEntry, output journal.csv) run in the foreground as `lineup run` does: fetch sorted by date (newest first) in batches of 10,000 on one snapshot, CSVWriter (ISO-8601 UTC dates, RFC 4180, CRLF) to a temporary file, fsync, rename. CPU of the last round \(Format.seconds(lineupCPU)) (all threads).",
            "baseline: sqlite3 \(SQLiteShell.version()) (Debian's CLI): sqlite3 -csv -header store.sqlite \"\(Self.baselineSelect) ORDER BY \"date\" DESC, pk ASC\" > baseline.csv, then fsync of baseline.csv; time from launching sqlite3 until the fsync returned. Best of \(Self.rounds) alternating rounds for each side (Lineup: \(lineupTimes.map { Format.seconds($0) }.joined(separator: ", ")); sqlite3: \(baselineTimes.map { Format.seconds($0) }.joined(separator: ", "))). The date is formatted by strftime as ISO-8601, so both sides format a million dates; the tie-break on pk is the ORDER BY Lineup's fetch uses (without it the row order of equal dates could differ). Because the formatted column is named date, ORDER BY \"date\" sorts by the ISO-8601 text (the same order): SQLite scans the table and sorts in memory. Lineup's fetch orders by the date column, so SQLite walks the date index and looks up each row by key, which with SQLite's default 2 MB page cache costs a page read from the OS per row; the row 'sqlite3 walking the date index' is the same baseline with ORDER BY \"JournalEntry\".\"date\" DESC, pk ASC, i.e. Lineup's query plan (single run).",
            "breakdown: the export's read alone — Lineup: a task context's enumerateObjectValues with ExportCSVTask's request (sorted by date, newest first) and batch size, rows handed to nothing; C API: the same SELECT stepped with every column read — neither formats nor writes anything.",
            "rss: VmHWM of this process (MB = 10^6 bytes), reset through /proc/self/clear_refs right before each Lineup round, the highest of the rounds; the baseline runs in its own process.",
            "machine: \(loadBefore) before, \(ProcessCPU.loadDescription()) after.",
        ]
        return table
    }

    private func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    /// The export's read alone: the same fetch request, batch size and context as ExportCSVTask,
    /// rows handed to nothing.
    private func readThroughLineup(_ container: PersistentContainer) throws -> (rows: Int, elapsed: UInt64) {
        let context = container.newTaskContext(name: "bench-read")
        var rows = 0
        let started = MonotonicClock.now()
        try context.performAndWait {
            try context.enumerateObjectValues(FetchRequest<JournalEntry>(sortedBy: [.descending(\.date)]), batchSize: 10_000) { batch in
                rows += batch.count
            }
        }
        return (rows, MonotonicClock.now() - started)
    }

    /// The same query stepped through SQLite's C API, every column read (text as bytes).
    private func readThroughCAPI(_ path: String) throws -> (rows: Int, elapsed: UInt64) {
        let database = try RawDatabase(path: path, readOnly: true)
        let sql = #"SELECT pk, _version, "date", "height", "period", "wind", "location", "rating" FROM "JournalEntry" ORDER BY "date" DESC, pk ASC"#
        let started = MonotonicClock.now()
        let statement = try database.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var rows = 0
        var checksum = 0
        while true {
            let code = sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                try database.check(code, sql)
                break
            }
            checksum &+= Int(sqlite3_column_int64(statement, 0)) &+ Int(sqlite3_column_double(statement, 2))
            for column in Int32(3)...Int32(6) {
                if sqlite3_column_text(statement, column) != nil { checksum &+= Int(sqlite3_column_bytes(statement, column)) }
            }
            if sqlite3_column_type(statement, 7) != SQLITE_NULL { checksum &+= Int(sqlite3_column_int64(statement, 7)) }
            rows += 1
        }
        let elapsed = MonotonicClock.now() - started
        guard checksum != 0 else { throw BenchError(.verification, "\(path): the C API read found nothing") }
        return (rows, elapsed)
    }

    /// Whether the two files hold the same rows once quoting and line endings are set aside:
    /// sqlite3 3.40 quotes every text field with a space and ends lines with LF, CSVWriter quotes
    /// only when RFC 4180 requires it and ends lines with CRLF. (No value holds a quote.)
    private func sameRows(_ first: URL, _ second: URL) throws -> Bool {
        let left = try Data(contentsOf: first, options: .alwaysMapped)
        let right = try Data(contentsOf: second, options: .alwaysMapped)
        return left.withUnsafeBytes { a in
            right.withUnsafeBytes { b in
                func ignored(_ byte: UInt8) -> Bool { byte == 0x22 || byte == 0x0D }
                var i = 0
                var j = 0
                while true {
                    while i < a.count && ignored(a[i]) { i += 1 }
                    while j < b.count && ignored(b[j]) { j += 1 }
                    if i == a.count || j == b.count { return i == a.count && j == b.count }
                    if a[i] != b[j] { return false }
                    i += 1
                    j += 1
                }
            }
        }
    }
}
