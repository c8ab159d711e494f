import Dispatch
import Foundation
import LineupSpool
import LineupStore
import Logging

/// The runner's commit queue: it flushes the store and then files the group of jobs that flush
/// carried in `done/` (group commit), off the coordinator.
///
/// A flush and its filing take as long as the disk wants (one SQLite transaction, then per job
/// two renames, with fsyncs on a durable spool). Done on the coordinator, they held up claiming
/// and starting jobs for that long; here the coordinator hands a group over and goes on, and
/// settles the group when the outcome comes back.
///
/// The rest of filing is done before the flush, by ``stage(_:of:logger:)`` on the thread of
/// the task that finished: each job's result report is encoded and written into `tmp/` as soon
/// as the job has finished, spread over the jobs' run instead of piled up behind the flush
/// that acknowledges them. What is left after the flush is renames.
///
/// Groups are committed one at a time, in the order they were handed over, so a later flush
/// never acknowledges its jobs before an earlier one. The committer touches only the store and
/// the spool: jobs come in and go out as `Sendable` values, never as the coordinator's records.
final class GroupCommitter: Sendable {
    /// A finished job to file once the flush has committed.
    struct Job: Sendable {
        let claimed: ClaimedJob
        let report: JobResultReport
        /// Its report written into `tmp/`; nil when that failed (filing tries again).
        let staged: StagedReport?
    }

    /// What committing a group did.
    struct Outcome: Sendable {
        /// The store flush, or why it failed (then nothing was filed).
        let flush: Result<FlushReport, any Error>
        /// Claims of the jobs now in `done/` with their reports.
        let filed: Set<String>
        /// Why a job of the group could not be filed, if one could not.
        var filingError: (any Error)? = nil
    }

    private let queue = DispatchQueue(label: "lineup.runner.commit")
    private let container: PersistentContainer
    private let spool: SpoolDirectory

    init(container: PersistentContainer, spool: SpoolDirectory) {
        self.container = container
        self.spool = spool
    }

    /// Writes the result report of a job that finished into `tmp/`, on the calling thread (the
    /// task's), so that filing it after the flush takes only renames.
    func stage(_ report: JobResultReport, of claimed: ClaimedJob, logger: Logger) -> Job {
        do {
            let staged = try spool.stageResultReport(report.encoded(), of: claimed)
            return Job(claimed: claimed, report: report, staged: staged)
        } catch {
            logger.warning(
                "cannot write a result report into tmp/; writing it again after the flush",
                metadata: ["job": "\(claimed.name)", "error": "\(error)"])
            return Job(claimed: claimed, report: report, staged: nil)
        }
    }

    /// Flushes the store, then files `jobs` in `done/` if the flush committed; calls `completion`
    /// on the commit queue with the outcome.
    ///
    /// Every job handed over must have saved into the main context before this call: the flush
    /// starts after it, so it carries their changes.
    func commit(_ jobs: [Job], logger: Logger, completion: @escaping @Sendable (Outcome) -> Void) {
        queue.async {
            let flush = Result { try self.container.flush() }
            guard case .success = flush else {
                completion(Outcome(flush: flush, filed: []))
                return
            }
            let (filed, filingError) = self.file(jobs, logger: logger)
            completion(Outcome(flush: flush, filed: filed, filingError: filingError))
        }
    }

    /// Moves the jobs to `done/` with their reports, as one group (one directory sync for the
    /// group rather than one per job); returns the claims of those moved. When the group stops at
    /// an error, the rest are tried one by one, so that one bad file holds back only itself.
    private func file(_ jobs: [Job], logger: Logger) -> (filed: Set<String>, error: (any Error)?) {
        guard !jobs.isEmpty else { return ([], nil) }
        let staged = jobs.compactMap { $0.staged ?? stage($0.report, of: $0.claimed, logger: logger).staged }
        do {
            try spool.complete(staged: staged)
            if staged.count == jobs.count {
                return (Set(staged.map(\.job.claim)), nil)
            }
        } catch {
            logger.warning("cannot move a group of jobs to done/; moving them one by one", metadata: ["error": "\(error)"])
        }
        let done = spool.directory(.done)
        var filed: Set<String> = []
        var lastError: (any Error)?
        for job in jobs {
            do {
                // Written afresh: the group may have moved its staged report already.
                try spool.complete(job.claimed, report: job.report)
                filed.insert(job.claimed.claim)
            } catch where FileManager.default.fileExists(atPath: done.appending(path: job.claimed.fileName).path) {
                // Moved by the group call before it stopped.
                filed.insert(job.claimed.claim)
            } catch {
                lastError = error
                logger.error(
                    "cannot move an acknowledged job to done/; retrying after the next flush",
                    metadata: ["job": "\(job.claimed.name)", "error": "\(error)"])
            }
        }
        return (filed, lastError)
    }
}
