import Foundation
import LineupJobs
import LineupSpool
import ServiceLifecycle

extension DatabaseJobStorage {
    /// The lease (first, so that it stops last: it must hold until the runner's final flush has
    /// acknowledged its jobs), and the spool's `new/` moved into the table, whose notification
    /// then wakes the runner.
    func services(
        spool: SpoolDirectory, pollInterval: Duration, wakeRunner: @escaping @Sendable () -> Void,
        givesUpLease: @escaping @Sendable () -> Bool
    ) -> (services: [any Service], newFilesHint: @Sendable () -> Void) {
        let intake = DatabaseIntake(spool: spool, database: database, logger: logger)
        let lease = JobLeaseService(jobs: self, pollInterval: pollInterval, hint: wakeRunner, givesUpLease: givesUpLease)
        return ([lease], { intake.hint() })
    }

    func cancel(_ jobs: [String]) throws -> (failed: [String], stopping: [String]) {
        let cancellation = try database.cancel(jobs)
        return (cancellation.failed, cancellation.requested)
    }

    func pruneDone(finishedBefore cutoff: Date) throws -> Int {
        try database.pruneDone(finishedBefore: cutoff)
    }

    func close() {
        database.close()
    }
}
