package import Foundation
package import LineupSpool
package import ServiceLifecycle

/// Jobs kept in a database that several daemons share, in place of the spool's files: the job
/// storage that a ``DatabaseDriver`` opens (LineupPostgres's jobs table).
///
/// Beside what every ``JobStorage`` does, it needs work of its own while the daemon runs (a lease
/// to renew, notifications to listen for, the spool's `new/` to move in), which it hands the
/// daemon as services, and it keeps its own done jobs, which the retention prunes.
package protocol SharedJobQueue: JobStorage {
    /// The services that keep the queue going beside the runner, in the order they start (they
    /// stop in the reverse order, after the runner's final flush), and the hint that tells it of
    /// new files in the spool's `new/`.
    ///
    /// - Parameters:
    ///   - spool: this host's spool, whose `new/` is the queue's intake.
    ///   - pollInterval: how often to look for due jobs when no notification says so.
    ///   - wakeRunner: tells the runner that jobs may be due.
    ///   - givesUpLease: asked at shutdown: whether the runner stopped every task, so that this
    ///     daemon's claims can be given up rather than left to run out.
    func services(
        spool: SpoolDirectory, pollInterval: Duration, wakeRunner: @escaping @Sendable () -> Void,
        givesUpLease: @escaping @Sendable () -> Bool
    ) -> (services: [any Service], newFilesHint: @Sendable () -> Void)

    /// Cancels the queued or running jobs whose id or name is in `jobs`: queued ones fail now,
    /// running ones are marked for the daemon that holds them. Returns the names of each.
    func cancel(_ jobs: [String]) throws -> (failed: [String], stopping: [String])

    /// Removes done jobs that finished before `cutoff`; returns how many.
    func pruneDone(finishedBefore cutoff: Date) throws -> Int

    /// Closes its connections, once the services have stopped.
    func close()
}
