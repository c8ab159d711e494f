import Foundation
import LineupLocking
import LineupSpool

/// What ``JobDaemon/cancelJob(_:)`` did.
public enum JobCancellation: Sendable, Hashable {
    /// Queued jobs, failed now with the reason "cancelled"; their names.
    case failedWhileQueued([String])
    /// Running jobs whose daemon was asked to stop them; their names. They fail as cancelled by
    /// an operator within a second or so, unless they finish first.
    case stopping([String])
    /// No queued or running job has this id or name.
    case notFound
}

extension JobDaemon {
    /// Cancels the job whose id or name is `job`, on the spool or the database this daemon runs
    /// on, as `lineup cancel` does: a queued job fails at once; a running one is stopped by the
    /// daemon that holds it (this one, or another on the database), which discards what it had
    /// not saved and fails it as "cancelled by an operator", without retries.
    ///
    /// - Throws: ``DaemonError`` when the daemon is not running; the spool's or the database's
    ///   error when the request cannot be made.
    public func cancelJob(_ job: String) throws -> JobCancellation {
        let (spool, database) = state.withLock { ($0.spool, $0.databaseJobs) }
        guard let spool else {
            throw DaemonError(.notRunning, path: configuration.spoolURL.path, "the daemon is not running: nothing to cancel")
        }
        if let database {
            let (failed, stopping) = try database.cancel([job])
            if !stopping.isEmpty { return .stopping(stopping) }
            return failed.isEmpty ? .notFound : .failedWhileQueued(failed)
        }
        let queued = try spool.entries(.queued, matching: job)
        var failed: [String] = []
        for entry in queued {
            // One a daemon claimed meanwhile is running: it is asked below.
            if (try? spool.cancel(entry)) != nil { failed.append(entry.name) }
        }
        if !failed.isEmpty { return .failedWhileQueued(failed) }
        let running = try spool.runningEntries(matching: job)
        guard !running.isEmpty else { return .notFound }
        try spool.requestCancellation(ofJob: job)
        return .stopping(running.map(\.name))
    }
}
