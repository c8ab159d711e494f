import Foundation
import LineupJobs
import LineupSpool
import LineupStore
import Logging
import SurfJournal

/// What one foreground run of a SurfJournal job measured.
struct SurfJobResult {
    let outcome: JobOutcome
    /// From making the task until the flush after it returned (the job's changes on disk).
    let elapsed: UInt64
    /// The part of `elapsed` spent in `container.flush()`.
    let flushElapsed: UInt64
}

/// Runs one SurfJournal job in the foreground, as `lineup run` does: the real task from
/// `SurfJournalJobs.registry` for a `JobRequest`, `start()` with a `BackgroundFlush` at the
/// daemon's default row limit, then `container.flush()` (main → writer → disk).
struct SurfJobRun {
    let container: PersistentContainer
    let inputDirectory: URL
    let outputDirectory: URL
    /// The main context's rows past which a flush starts while the task runs.
    static let flushRowLimit = DaemonConfiguration.defaultFlushRowLimit

    func run(kind: String, parameters: [String: JSONValue]) throws -> SurfJobResult {
        let file = try JobFile(kind: kind, parameters: parameters)
        let request = JobRequest(
            jobID: "bench-\(kind)", name: "bench-\(kind)", file: file,
            jobFilePath: outputDirectory.appendingPathComponent("bench-\(kind).job.json").path,
            paths: PathPolicy(inputDirectory: inputDirectory, outputDirectory: outputDirectory), container: container,
            logger: BenchSupport.logger())
        let started = MonotonicClock.now()
        let flushing = BackgroundFlush(container: container, rowLimit: Self.flushRowLimit, logger: BenchSupport.logger())
        let task = try SurfJournalJobs.registry.makeTask(for: request)
        task.start()
        try flushing.finish()
        guard case let .succeeded(outcome)? = task.result else {
            throw BenchError(.lineup, "\(kind) failed: \(task.result?.error.map { "\($0)" } ?? "cancelled")")
        }
        let flushStarted = MonotonicClock.now()
        try container.flush()
        let ended = MonotonicClock.now()
        return SurfJobResult(outcome: outcome, elapsed: ended - started, flushElapsed: ended - flushStarted)
    }
}
