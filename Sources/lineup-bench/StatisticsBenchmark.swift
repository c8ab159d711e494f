import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import SurfJournal
import LineupTestSupport

/// `lineup-bench statistics`: the statistics task beside the same SQL in `sqlite3` (issue 4).
///
/// 1. Input: a store of `--rows` JournalEntry rows and `--observations` buoy observations of
///    `--stations` stations (``JournalFixture``).
/// 2. Lineup: the real `statistics` task (StatisticsTask) writing stats.json and stats.txt, in
///    the foreground as `lineup run` does.
/// 3. Baseline: `sqlite3 -json store.sqlite "<the same aggregate queries>" > file`, then fsync.
/// 4. Each side runs ``rounds`` times, alternating; the best time of each is compared (the
///    first round of each also warms its caches).
struct StatisticsBenchmark {
    /// "within 1.5x": Lineup may take at most 1.5 times the baseline's time.
    static let ratioTarget = 1 / 1.5
    static let rounds = 5
    static let observationSeed: UInt64 = 0x5EED_B0E4_2024_0002

    /// The SQL the aggregate requests of StatisticsCalculator and StatisticsChartData compile to
    /// (AggregateRequest: group keys and aggregates as columns, the predicate's IS NOT NULL
    /// tests, GROUP BY and ORDER BY the keys), plus the station look-ups the task does.
    static let baselineSQL = [
        #"SELECT "location" AS "location", count(*) AS "sessions", avg("rating") AS "meanRating", avg("height") AS "meanHeight" FROM "JournalEntry" WHERE "location" IS NOT NULL GROUP BY "location" ORDER BY "location""#,
        #"SELECT "location" AS "location", CAST(strftime('%m', "date", 'unixepoch') AS INTEGER) AS "month", count(*) AS "sessions", avg("rating") AS "meanRating" FROM "JournalEntry" WHERE ("location" IS NOT NULL AND "date" IS NOT NULL) GROUP BY "location", "month" ORDER BY "location", "month""#,
        #"SELECT "station" AS "station", count(*) AS "observations", min("time") AS "first", max("time") AS "last", count("waveHeight") AS "heights", min("waveHeight") AS "minHeight", avg("waveHeight") AS "meanHeight", max("waveHeight") AS "maxHeight", count("dominantPeriod") AS "periods", min("dominantPeriod") AS "minPeriod", avg("dominantPeriod") AS "meanPeriod", max("dominantPeriod") AS "maxPeriod" FROM "BuoyObservation" WHERE "time" IS NOT NULL GROUP BY "station" ORDER BY "station""#,
        #"SELECT pk, "stationID", "name" FROM "BuoyStation" ORDER BY pk"#,
        // The picture's (StatisticsChartData, which shares the months above): daily means per
        // station, the sessions per location and day, and the stations' positions.
        #"SELECT "station" AS "station", date("time", 'unixepoch') AS "day", avg("waveHeight") AS "height", avg("dominantPeriod") AS "period" FROM "BuoyObservation" WHERE "time" IS NOT NULL GROUP BY "station", "day" ORDER BY "station", "day""#,
        #"SELECT "location" AS "location", date("date", 'unixepoch') AS "day", count(*) AS "sessions", avg("rating") AS "meanRating" FROM "JournalEntry" WHERE ("location" IS NOT NULL AND "date" IS NOT NULL) GROUP BY "location", "day" ORDER BY "location", "day""#,
        #"SELECT pk, "stationID", "latitude", "longitude" FROM "BuoyStation" ORDER BY pk"#,
    ]

    let options: BenchOptions

    func run() throws -> ResultTable {
        let loadBefore = ProcessCPU.loadDescription()
        let directory = try BenchSupport.makeWorkDirectory(options, name: "statistics")
        defer { BenchSupport.finish(directory, options, name: "statistics") }
        let outputDirectory = try BenchSupport.makeDirectory(directory.appendingPathComponent("output", isDirectory: true))
        let store = directory.appendingPathComponent("store.sqlite")

        progress("statistics: building a store of \(Format.grouped(options.rows)) JournalEntry rows and \(Format.grouped(options.observations)) observations …")
        let buildTime = try JournalFixture(
            rows: options.rows, observations: options.observations, stations: options.stations,
            observationSeed: Self.observationSeed
        ).build(at: store)

        let container = try PersistentContainer(url: store, model: SurfJournalModel.model, logger: BenchSupport.logger())
        defer { try? container.close() }
        let run = SurfJobRun(container: container, inputDirectory: outputDirectory, outputDirectory: outputDirectory)
        let baselineFile = directory.appendingPathComponent("baseline.json")
        var lineupTimes: [UInt64] = []
        var baselineTimes: [UInt64] = []
        var outcome: SurfJobResult?
        for round in 1...Self.rounds {
            progress("statistics: round \(round) of \(Self.rounds): Lineup statistics task, then sqlite3 …")
            let result = try run.run(kind: StatisticsTask.kind, parameters: ["output": .string("stats.json")])
            lineupTimes.append(result.elapsed)
            outcome = result
            baselineTimes.append(
                try SQLiteShell.run(["-json", store.path, Self.baselineSQL.joined(separator: "; ")], output: baselineFile).elapsed)
        }

        // The baseline's queries give the groups the task reported.
        let database = try RawDatabase(path: store.path, readOnly: true)
        let locations = try database.rows(Self.baselineSQL[0]).count
        let stations = try database.rows(Self.baselineSQL[2]).count
        guard let outcome, outcome.outcome.counts["locations"] == locations, outcome.outcome.counts["stations"] == stations,
            locations > 0, stations == options.stations
        else {
            throw BenchError(
                .verification,
                "the statistics task reported \(outcome?.outcome.counts ?? [:]); the SQL gives \(locations) locations and \(stations) stations")
        }

        let lineupBest = lineupTimes.min()!
        let baselineBest = baselineTimes.min()!
        let ratio = Double(baselineBest) / Double(lineupBest)
        var table = ResultTable()
        table.rows.append(
            .init(
                benchmark: "statistics.report", lineup: Format.seconds(lineupBest), baseline: Format.seconds(baselineBest),
                ratio: Format.ratio(ratio), target: "within 1.5x (ratio >= \(Format.ratio(Self.ratioTarget)))",
                verdict: BenchSupport.verdict(ratio >= Self.ratioTarget)))
        table.results.append(
            "RESULT statistics.report lineup=\(BenchSupport.plainSeconds(lineupBest))s baseline=\(BenchSupport.plainSeconds(baselineBest))s ratio=\(Format.ratio(ratio))"
        )
        table.notes = [
            "statistics: a store of \(Format.grouped(options.rows)) JournalEntry rows (BenchRowGenerator) and \(Format.grouped(options.observations)) observations of \(options.stations) stations (SampleObservations seed \(String(Self.observationSeed, radix: 16))), made by PersistentContainer and filled with raw SQL (\(Format.seconds(buildTime))); \(locations) locations.",
            "Lineup: the statistics task (StatisticsTask from SurfJournalJobs.registry, output stats.json) in the foreground as `lineup run` does: five aggregate requests (SQL GROUP BY: three for the report, two more for the picture, which shares the months), a station look-up per station, stats.json, stats.txt and stats.svg written. Times of the \(Self.rounds) rounds: \(lineupTimes.map { Format.seconds($0) }.joined(separator: ", ")).",
            "baseline: sqlite3 \(SQLiteShell.version()) (Debian's CLI): sqlite3 -json store.sqlite \"<the same 5 aggregate queries>; <the 2 station look-ups>\" > baseline.json, then fsync; from launch to fsync. Times: \(baselineTimes.map { Format.seconds($0) }.joined(separator: ", ")). The best round of each side is compared; ratio = baseline time / Lineup time.",
            "machine: \(loadBefore) before, \(ProcessCPU.loadDescription()) after.",
        ]
        return table
    }
}
