import Dispatch
import Foundation
import LineupSpool
import LineupStore
import Logging

/// The runner's commit queue: it flushes the store and acknowledges the group of jobs that
/// flush carried (group commit), off the coordinator. What an acknowledgement is belongs to the
/// job storage (``JobStorage/commit(_:flushing:logger:)``): files moved to `done/` after the flush,
/// or rows marked done in the flush's own transaction.
///
/// A flush and its acknowledgements take as long as the disk (or the database) wants. Done on
/// the coordinator, they held up claiming and starting jobs for that long; here the coordinator
/// hands a group over and goes on, and settles the group when the outcome comes back.
///
/// The rest of an acknowledgement is prepared before the flush, by ``stage(_:of:logger:)`` on the
/// thread of the task that finished (the spool writes each job's result report into `tmp/`),
/// spread over the jobs' run instead of piled up behind the flush that acknowledges them.
///
/// Groups are committed one at a time, in the order they were handed over, so a later flush
/// never acknowledges its jobs before an earlier one. The committer touches only the store and
/// the job storage: jobs come in and go out as `Sendable` values, never as the coordinator's records.
final class GroupCommitter<Storage: JobStorage>: Sendable {
    private let queue = DispatchQueue(label: "lineup.runner.commit")
    private let container: PersistentContainer
    private let jobs: Storage

    init(container: PersistentContainer, jobs: Storage) {
        self.container = container
        self.jobs = jobs
    }

    /// Prepares the acknowledgement of a job that finished, on the calling thread (the task's).
    func stage(_ report: JobResultReport, of claimed: Storage.Held, logger: Logger) -> FinishedJob<Storage.Held> {
        jobs.stage(report, of: claimed, logger: logger)
    }

    /// Flushes the store and acknowledges `jobs` if the flush committed; calls `completion` on
    /// the commit queue with the outcome.
    ///
    /// Every job handed over must have saved into the main context before this call: the flush
    /// starts after it, so it carries their changes.
    ///
    /// A flush that meets rows another writer of the store wrote since, in a way that no merge
    /// policy settles (the saving contexts' policy is `.error`), can never be written as it is,
    /// and every later flush would carry it again: what the stack holds unwritten is discarded,
    /// and the outcome says so (the runner runs those jobs again, which read the other writer's
    /// rows). A conflict met before the write (the main context's changes against the writer's,
    /// which only code that saves the writer itself makes) fails the flush as any failure does.
    func commit(_ jobs: [FinishedJob<Storage.Held>], logger: Logger, completion: @escaping @Sendable (CommitOutcome) -> Void) {
        queue.async {
            var outcome = self.jobs.commit(jobs, flushing: self.container, logger: logger)
            if case let .failure(error as StoreError) = outcome.flush, error.code == .mergeConflict,
                let discarded = self.container.discardUnwritableChanges()
            {
                outcome.discardedUnwritten = true
                logger.warning(
                    "a flush met rows that another writer of the store wrote since, which no merge policy settles; what it carried is discarded, and its jobs run again",
                    metadata: ["store": "\(self.container.storeLocation)", "rows": "\(discarded)", "error": "\(error)"])
            }
            completion(outcome)
        }
    }
}
