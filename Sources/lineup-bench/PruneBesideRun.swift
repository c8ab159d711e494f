import Foundation
import LineupLocking
import LineupPostgres

/// `postgres-jobs --prune`: deletes the done rows of the history on a connection of its own, a
/// batch a transaction (``JobDatabase/pruneDoneBatch(finishedBefore:batchSize:)``), while the
/// daemons claim beside it; what their claims' p99 shows is what a prune costs them.
final class PruneBesideRun: Sendable {
    private let database: JobDatabase
    private let cutoff: Date
    private let isStopping = Locked(false)
    private let outcome = Locked<Result<Int, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    init(databaseURL: URL, finishedBefore cutoff: Date) throws {
        database = try JobDatabase(url: databaseURL, logger: BenchSupport.logger(), connections: 1)
        self.cutoff = cutoff
    }

    func start() {
        Thread.detachNewThread { [self] in
            let result = Result { () throws -> Int in
                var pruned = 0
                while !isStopping.withLock({ $0 }) {
                    let batch = try database.pruneDoneBatch(finishedBefore: cutoff)
                    pruned += batch
                    if batch < JobDatabase.pruneBatchSize { break }
                }
                return pruned
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// Stops after the batch under way; returns the rows deleted.
    func stop() throws -> Int {
        isStopping.withLock { $0 = true }
        finished.wait()
        database.close()
        guard let result = outcome.withLock({ $0 }) else { return 0 }
        return try result.get()
    }
}
