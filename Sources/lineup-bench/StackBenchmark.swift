import Foundation

/// `lineup-bench stack`: the object-graph stack against raw SQLite (DESIGN §7).
///
/// 1. Lineup: `rows` BenchEntry objects inserted in task contexts of `chunk` objects, saved
///    child → main → writer → disk, with a heartbeat on the main context. Peak RSS is read
///    right after, before anything else runs in the process.
/// 2. Baseline: the same rows through SQLite's C API, one prepared statement, one transaction.
/// 3. Both tables are read back and must hold the same values.
struct StackBenchmark {
    /// Issue 10's targets: 0.7 of the baseline's speed, and at least half its CPU efficiency
    /// (baseline CPU time / Lineup's, all threads), since on a busy server the second core is not free.
    static let insertRatioTarget = 0.7
    static let cpuRatioTarget = 0.5
    static let heartbeatP99Target: UInt64 = 2_000_000
    static let peakResidentTarget = 250_000_000

    let options: BenchOptions

    func run() throws -> ResultTable {
        let loadBefore = ProcessCPU.loadDescription()
        let directory = try BenchSupport.makeWorkDirectory(options, name: "stack")
        defer { BenchSupport.finish(directory, options, name: "stack") }
        progress("stack: Lineup, \(Format.grouped(options.rows)) rows in chunks of \(Format.grouped(options.chunk)) (\(options.flushMode.rawValue) flushes) …")
        let lineup = try LineupInsertRun(
            rows: options.rows, chunkSize: options.chunk, flushMode: options.flushMode,
            storeURL: directory.appendingPathComponent("lineup.sqlite")
        ).run()
        progress("stack: raw SQLite baseline, \(Format.grouped(options.rows)) rows …")
        let peakWasReset = ProcessMemory.resetPeak()
        let baseline = try RawSQLiteInsertRun(rows: options.rows, directory: directory).run()

        let lineupDigest = try RawDatabase.benchEntryDigest(at: lineup.storeURL.path)
        let baselineDigest = try RawDatabase.benchEntryDigest(at: baseline.path)
        guard lineupDigest == baselineDigest else {
            throw BenchError(
                .verification,
                "Lineup's store and the baseline hold different rows: \(lineupDigest) vs \(baselineDigest)")
        }
        let machine = "\(loadBefore) before, \(ProcessCPU.loadDescription()) after"
        return table(lineup: lineup, baseline: baseline, peakWasReset: peakWasReset, machine: machine)
    }

    private func table(
        lineup: LineupInsertResult, baseline: RawInsertResult, peakWasReset: Bool, machine: String
    ) -> ResultTable {
        var table = ResultTable()
        let ratio = lineup.rowsPerSecond / baseline.rowsPerSecond
        table.rows.append(
            .init(
                benchmark: "stack.insert",
                lineup: "\(Format.groupedRate(lineup.rowsPerSecond)) (\(Format.seconds(lineup.elapsed)))",
                baseline: "\(Format.groupedRate(baseline.rowsPerSecond)) (\(Format.seconds(baseline.elapsed)))",
                ratio: Format.ratio(ratio),
                target: "ratio >= \(Self.insertRatioTarget)",
                verdict: BenchSupport.verdict(ratio >= Self.insertRatioTarget)))
        table.results.append(
            "RESULT stack.insert lineup=\(Format.rate(lineup.rowsPerSecond))/s baseline=\(Format.rate(baseline.rowsPerSecond))/s ratio=\(Format.ratio(ratio))"
        )
        table.append(
            cpuRow: "stack.cpu", lineup: lineup.cpuTime, lineupElapsed: lineup.elapsed, baseline: baseline.cpuTime,
            baselineElapsed: baseline.elapsed, target: Self.cpuRatioTarget)

        let all = LatencySummary(lineup.heartbeats.map(\.latency))
        let writerSaves = lineup.flushes.map { $0.handedOver...$0.ended }
        let writing = LatencySummary(HeartbeatSample.latencies(of: lineup.heartbeats, sentDuring: writerSaves))
        table.rows.append(
            .init(
                benchmark: "stack.heartbeat", lineup: describe(all), baseline: "-", ratio: "-",
                target: "p99 <= \(Format.milliseconds(Self.heartbeatP99Target)) ms",
                verdict: all.map { BenchSupport.verdict($0.p99 <= Self.heartbeatP99Target) } ?? "no beats"))
        table.rows.append(
            .init(
                benchmark: "  beats sent while the writer saves", lineup: describe(writing), baseline: "-", ratio: "-",
                target: "(subset of the above)", verdict: ""))
        if let all {
            table.results.append(
                "RESULT stack.heartbeat p50=\(Format.milliseconds(all.p50))ms p99=\(Format.milliseconds(all.p99))ms max=\(Format.milliseconds(all.max))ms"
            )
        }

        table.rows.append(
            .init(
                benchmark: "stack.rss",
                lineup: "peak \(Format.megabytes(lineup.peakResident)) (\(Format.megabytes(lineup.residentAtStart)) before)",
                baseline: peakWasReset
                    ? "peak \(Format.megabytes(baseline.peakResident)) (\(Format.megabytes(baseline.residentAtStart)) before)"
                    : "n/a",
                ratio: "-",
                target: "peak < \(Self.peakResidentTarget / 1_000_000)MB",
                verdict: lineup.peakResident.map { BenchSupport.verdict($0 < Self.peakResidentTarget) } ?? "n/a"))
        table.results.append("RESULT stack.rss peak=\(Format.megabytes(lineup.peakResident))")

        let flushes = lineup.flushes
        let handOverTime = flushes.reduce(0) { $0 + ($1.handedOver - $1.started) }
        let writerTime = flushes.reduce(0) { $0 + ($1.ended - $1.handedOver) }
        let longestFlush = flushes.map { $0.ended - $0.started }.max() ?? 0
        table.notes = [
            "rows: \(Format.grouped(options.rows)) BenchEntry objects (6 attributes, JournalEntry's shape), SplitMix64 seed \(String(BenchRowGenerator.defaultSeed, radix: 16)), identical for both sides (checked by reading both tables back).",
            "Lineup: \(lineup.chunks) task contexts of up to \(Format.grouped(options.chunk)) objects, each performAndWait { insert; save } into main, then dropped; time runs from the first insert until the last row is committed on disk.",
            "flushes: \(options.flushMode.explanation). A flush is PersistentContainer.flush()'s two steps, timed one by one: main.performAndWait { save } (main → writer), then writer.performAndWait { save } (writer → disk, one transaction). \(flushes.count) flushes that wrote rows, the longest \(Format.milliseconds(longestFlush)) ms.",
            "Lineup wall time by phase (summed; with background flushes the flushes overlap the inserts): creating objects \(Format.seconds(lineup.insertTime)), task-context saves into main \(Format.seconds(lineup.childSaveTime)), main → writer \(Format.seconds(handOverTime)), writer → disk \(Format.seconds(writerTime)).",
            "cpu: CPU time of the process (all threads, user + sys) while each side ran; ratio = baseline's / Lineup's. machine: \(machine).",
            "baseline: one prepared INSERT, one transaction, bind + step + reset per row; time from BEGIN until COMMIT returns. Both databases: WAL, synchronous = FULL asked for, in \(options.directory ?? FileManager.default.temporaryDirectory.path).",
            "heartbeat: perform {} on the main context every 1 ms from a thread of its own during the whole Lineup run; latency = from the perform call to the block starting; \(Format.grouped(all?.count ?? 0)) beats, \(Format.grouped(writing?.count ?? 0)) of them sent while the writer was saving to disk.",
            "rss: VmHWM of the process (MB = 10^6 bytes), read right after the Lineup import, before the baseline ran; the baseline's peak is VmHWM after resetting it through /proc/self/clear_refs.",
        ]
        return table
    }

    private func describe(_ summary: LatencySummary?) -> String {
        guard let summary else { return "no beats" }
        return "p50 \(Format.milliseconds(summary.p50)) / p99 \(Format.milliseconds(summary.p99)) / max \(Format.milliseconds(summary.max)) ms"
    }

}

/// Progress for people, on stderr, so that stdout holds only the table and RESULT lines.
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
