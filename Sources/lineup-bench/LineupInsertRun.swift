import Foundation
import LineupPostgres
import LineupStore
import Logging

/// What the Lineup side of the stack benchmark measured.
struct LineupInsertResult {
    let rows: Int
    let chunks: Int
    /// From the first insert until the last row is committed on disk.
    let elapsed: UInt64
    let flushes: [FlushTiming]
    let heartbeats: [HeartbeatSample]
    /// Resident memory before the container opened, and the process's peak right after the import.
    let residentAtStart: Int?
    let peakResident: Int?
    let storeURL: URL
    /// Wall time the importer spent creating objects, and in its task contexts' saves into main.
    let insertTime: UInt64
    let childSaveTime: UInt64
    /// CPU time of the whole process (all threads) during the import.
    let cpuTime: UInt64

    var rowsPerSecond: Double { Double(rows) / MonotonicClock.seconds(elapsed) }
}

/// Inserts the generated rows through the whole stack, as a long import job does: one task
/// context per chunk, `performAndWait { insert; save }` (child → main), the context dropped, and
/// flushes main → writer → disk scheduled by a ``FlushScheduler``. A heartbeat measures the main
/// context's queue latency throughout.
struct LineupInsertRun {
    let rows: Int
    let chunkSize: Int
    let flushMode: FlushMode
    /// An SQLite file, or a PostgreSQL database (`postgres://…`).
    let storeURL: URL

    func run() throws -> LineupInsertResult {
        var logger = Logger(label: "lineup-bench")
        logger.logLevel = .warning
        let residentAtStart = ProcessMemory.residentBytes()
        let model = ManagedObjectModel(BenchEntry.self)
        let container =
            storeURL.isFileURL
            ? try PersistentContainer(url: storeURL, model: model, logger: logger)
            : try PersistentContainer(postgresURL: storeURL, model: model, logger: logger)
        let scheduler = FlushScheduler(container: container, mode: flushMode)
        let heartbeat = Heartbeat(context: container.mainContext)
        var generator = BenchRowGenerator()
        let chunks = (rows + chunkSize - 1) / chunkSize

        var insertTime: UInt64 = 0
        var childSaveTime: UInt64 = 0
        heartbeat.start()
        let cpuAtStart = ProcessCPU.usedNanoseconds()
        let started = MonotonicClock.now()
        let flushes: [FlushTiming]
        do {
            for chunk in 0..<chunks {
                let count = min(chunkSize, rows - chunk * chunkSize)
                let context = container.newTaskContext(name: "bench-chunk-\(chunk)")
                try context.performAndWait {
                    let chunkStarted = MonotonicClock.now()
                    for _ in 0..<count {
                        let row = generator.next()
                        let entry = BenchEntry(context: context)
                        entry.date = Date(timeIntervalSince1970: row.date)
                        entry.height = row.height
                        entry.period = row.period
                        entry.wind = row.wind
                        entry.location = row.location
                        entry.rating = row.rating
                    }
                    let saveStarted = MonotonicClock.now()
                    try context.save()
                    insertTime += saveStarted - chunkStarted
                    childSaveTime += MonotonicClock.now() - saveStarted
                }
                try scheduler.chunkSaved()
            }
            flushes = try scheduler.finish()
        } catch {
            _ = heartbeat.stop()
            throw BenchError(.lineup, "Lineup import into \(container.storeLocation) failed: \(error)")
        }
        let elapsed = MonotonicClock.now() - started
        let cpuTime = ProcessCPU.usedNanoseconds() - cpuAtStart
        let peakResident = ProcessMemory.peakResidentBytes()
        let heartbeats = heartbeat.stop()

        let stored = try container.rowCount(of: BenchEntry.entityName)
        guard stored == rows else {
            throw BenchError(.verification, "\(container.storeLocation) holds \(stored) BenchEntry rows after the import, expected \(rows)")
        }
        try container.close()

        return LineupInsertResult(
            rows: rows, chunks: chunks, elapsed: elapsed, flushes: flushes, heartbeats: heartbeats,
            residentAtStart: residentAtStart, peakResident: peakResident,
            storeURL: storeURL, insertTime: insertTime, childSaveTime: childSaveTime, cpuTime: cpuTime)
    }
}
