import BuoyXML
import Foundation
import LineupSpool
import LineupStore
import SurfJournal
import LineupTestSupport

/// `lineup-bench import`: a buoy XML import end to end, beside libxml2 + raw SQLite (issue 4).
///
/// 1. Input: `--observations` records of `SampleObservations` (fixed seed) over `--stations`
///    stations, written by `SOSDocumentWriter` as an IOOS SOS document.
/// 2. Lineup: the real `import-buoy` task (ImportBuoyTask, from `SurfJournalJobs.registry`, for a
///    `JobRequest`), run in the foreground as `lineup run` does, then `container.flush()`:
///    validate → parse → child context → main → writer → disk. A `BackgroundFlush` flushes
///    while the task runs once main holds more than the daemon's default `flushRowLimit`.
/// 3. Baseline: ``MinimalSOSParser`` (libxml2 SAX2, the rows cut out by hand) and one prepared
///    INSERT in one transaction (``RawBuoyImportRun``) into a store of Lineup's schema.
/// 4. Both stores must hold the same observations (counts and sums of every column).
///
/// For the breakdown it also times the three parses alone: libxml2 with empty callbacks (what
/// the task's validation pass costs), Lineup's `BuoyXMLReader.read` delivering records to
/// nothing, and the minimal parser delivering rows to nothing.
struct ImportBenchmark {
    /// Issue 10's targets, as for `stack` (see ``StackBenchmark/insertRatioTarget``).
    static let ratioTarget = 0.7
    static let cpuRatioTarget = 0.5
    static let seed: UInt64 = 0x5EED_B0E4_2024_0001

    let options: BenchOptions

    func run() throws -> ResultTable {
        let loadBefore = ProcessCPU.loadDescription()
        let directory = try BenchSupport.makeWorkDirectory(options, name: "import")
        defer { BenchSupport.finish(directory, options, name: "import") }
        let inputDirectory = try BenchSupport.makeDirectory(directory.appendingPathComponent("input", isDirectory: true))
        let outputDirectory = try BenchSupport.makeDirectory(directory.appendingPathComponent("output", isDirectory: true))
        let input = inputDirectory.appendingPathComponent("observations.xml")

        progress("import: writing \(Format.grouped(options.observations)) observations of \(options.stations) stations as SOS XML …")
        let samples = SampleObservations(seed: Self.seed, count: options.observations, stations: options.stations)
        let bytes = try SOSDocumentWriter.write(samples, to: input)

        progress("import: parses alone (libxml2 empty callbacks, BuoyXMLReader, minimal SAX) …")
        let reader = BuoyXMLReader()
        var started = MonotonicClock.now()
        let validation = try reader.validate(contentsOf: input)
        let validateTime = MonotonicClock.now() - started
        var records = 0
        started = MonotonicClock.now()
        _ = try reader.read(contentsOf: input, onObservation: { _ in records += 1 }, onStation: { _ in })
        let readerTime = MonotonicClock.now() - started
        let minimalParse = try RawBuoyImportRun(input: input, storePath: "", insert: false).run()
        guard records == options.observations, minimalParse.rows == options.observations else {
            throw BenchError(
                .verification,
                "\(input.path): BuoyXMLReader read \(records) and the minimal parser \(minimalParse.rows) observations, expected \(options.observations)")
        }

        progress("import: Lineup import-buoy task + flush …")
        let logger = BenchSupport.logger()
        let lineupStore = directory.appendingPathComponent("lineup.sqlite")
        let container = try PersistentContainer(url: lineupStore, model: SurfJournalModel.model, logger: logger)
        let residentBefore = ProcessMemory.residentBytes()
        let peakWasReset = ProcessMemory.resetPeak()
        let cpuAtStart = ProcessCPU.usedNanoseconds()
        let lineup = try SurfJobRun(container: container, inputDirectory: inputDirectory, outputDirectory: outputDirectory)
            .run(kind: ImportBuoyTask.kind, parameters: ["input": .string(input.lastPathComponent)])
        let lineupCPU = ProcessCPU.usedNanoseconds() - cpuAtStart
        let peakResident = ProcessMemory.peakResidentBytes()
        let lineupRows = try container.rowCount(of: BuoyObservation.entityName)
        try container.close()

        progress("import: baseline, minimal libxml2 SAX + raw SQLite inserts …")
        let baselineStore = directory.appendingPathComponent("baseline.sqlite")
        try PersistentContainer(url: baselineStore, model: SurfJournalModel.model, logger: logger).close()
        let baselineCPUAtStart = ProcessCPU.usedNanoseconds()
        let baseline = try RawBuoyImportRun(input: input, storePath: baselineStore.path, insert: true).run()
        let baselineCPU = ProcessCPU.usedNanoseconds() - baselineCPUAtStart

        try StoreDigest.compareObservations(lineup: lineupStore.path, baseline: baselineStore.path)
        guard lineupRows == options.observations, baseline.rows == options.observations else {
            throw BenchError(
                .verification,
                "Lineup stored \(lineupRows) and the baseline \(baseline.rows) observations, expected \(options.observations)")
        }

        var table = ResultTable()
        let lineupRate = Double(lineupRows) / MonotonicClock.seconds(lineup.elapsed)
        let ratio = lineupRate / baseline.rowsPerSecond
        table.rows.append(
            .init(
                benchmark: "import.observations",
                lineup: "\(Format.groupedRate(lineupRate)) (\(Format.seconds(lineup.elapsed)))",
                baseline: "\(Format.groupedRate(baseline.rowsPerSecond)) (\(Format.seconds(baseline.elapsed)))",
                ratio: Format.ratio(ratio), target: "ratio >= \(Self.ratioTarget)",
                verdict: BenchSupport.verdict(ratio >= Self.ratioTarget)))
        table.results.append(
            "RESULT import.observations lineup=\(Format.rate(lineupRate))/s baseline=\(Format.rate(baseline.rowsPerSecond))/s ratio=\(Format.ratio(ratio))"
        )
        table.append(
            cpuRow: "import.cpu", lineup: lineupCPU, lineupElapsed: lineup.elapsed, baseline: baselineCPU,
            baselineElapsed: baseline.elapsed, target: Self.cpuRatioTarget)
        let readerRate = Double(records) / MonotonicClock.seconds(readerTime)
        table.rows.append(
            .init(
                benchmark: "  parse only: BuoyXMLReader / minimal SAX",
                lineup: "\(Format.groupedRate(readerRate)) (\(Format.seconds(readerTime)))",
                baseline: "\(Format.groupedRate(minimalParse.rowsPerSecond)) (\(Format.seconds(minimalParse.elapsed)))",
                ratio: Format.ratio(readerRate / minimalParse.rowsPerSecond), target: "(breakdown)", verdict: ""))
        let megabytesPerSecond = Double(validation.byteCount) / 1e6 / MonotonicClock.seconds(validateTime)
        table.rows.append(
            .init(
                benchmark: "  libxml2 SAX, empty callbacks",
                lineup: "\(Format.groupedRate(Double(options.observations) / MonotonicClock.seconds(validateTime))) (\(Format.seconds(validateTime)), \(Format.trimmed(megabytesPerSecond)) MB/s)",
                baseline: "-", ratio: "-", target: "(validation pass)", verdict: ""))
        table.notes = [
            "import: \(Format.grouped(options.observations)) observations of \(options.stations) stations (SampleObservations seed \(String(Self.seed, radix: 16))) as one SOS document of \(Format.grouped(bytes)) bytes, \(Format.grouped(validation.elementCount)) elements; both stores hold the same rows (count and the sum of every column compared).",
            "Lineup: the import-buoy task (ImportBuoyTask from SurfJournalJobs.registry, a JobRequest, start()) run in the foreground as `lineup run` does — its libxml2 validation pass, then BuoyXMLReader.read into BuoyUpserter (chunks of 10,000 saved into main, context reset); meanwhile a BackgroundFlush writes main → writer → disk on a queue of its own each time main holds more than \(Format.grouped(SurfJobRun.flushRowLimit)) rows (the daemon's default flushRowLimit; the daemon's runner flushes the same way through its committer); then container.flush() for the rest (\(Format.seconds(lineup.flushElapsed)) of the total). Not the daemon: no spool, no flush interval. Peak RSS \(peakWasReset ? Format.megabytes(peakResident) : "n/a") (\(Format.megabytes(residentBefore)) before).",
            "baseline: libxml2's SAX2 push parser (64 KiB chunks, as Lineup's reader) with a start/end callback that notices swe:values and a characters callback that cuts it into rows, parsed by hand (strtod, fixed-layout ISO-8601); one prepared INSERT per row in one transaction with SQLite's C API into a store of Lineup's schema (unique (station, time) and time indexes), WAL, synchronous = FULL; time from opening the file until COMMIT returns.",
            "breakdown rows: each parse alone, delivering to nothing; the empty-callback libxml2 pass is DESIGN §7's XML baseline and what ImportBuoyTask's validation costs.",
            "cpu: CPU time of the process (all threads, user + sys) while each side ran; ratio = baseline's / Lineup's.",
            "machine: \(loadBefore) before, \(ProcessCPU.loadDescription()) after.",
        ]
        return table
    }
}
