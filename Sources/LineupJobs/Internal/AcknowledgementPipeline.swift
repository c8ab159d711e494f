import Foundation

/// The runner's group commit as plain state: finished jobs wait for a flush, go to the committer
/// in groups, and come back acknowledged, or back in line when the flush or their filing failed.
///
/// ```
///  finished ──► awaiting a flush ──beginFlush──► committing ──endFlush──► acknowledged
///                  ▲      ▲                          │  │  │
///                  │      └── the flush failed ◄─────┘  │  └──► discarded: run again
///                  └──── awaiting filing ◄──────────────┘ flushed, not filed in done/
/// ```
///
/// Groups are committed in the order they were handed over, one outcome each, oldest first. No
/// I/O and no threads: the runner keeps one on its coordinator and acts on what it answers;
/// generic over the job so that its rules are tested without a runner.
struct AcknowledgementPipeline<Job> {
    /// Finished jobs whose changes are in the main context, in the order they finished.
    private(set) var awaitingFlush: [Job] = []
    /// Jobs flushed whose files could not be filed in `done/` yet: the next group takes them first.
    private(set) var awaitingFiling: [Job] = []
    /// The groups handed to the committer whose outcome has not come back, oldest first, each
    /// with how many of its first jobs were flushed before and only wait to be filed.
    private var committing: [(jobs: [Job], flushedBefore: Int)] = []
    /// Flushes that failed since the last one that committed.
    private(set) var consecutiveFlushFailures = 0
    /// Since when no finished job could be acknowledged (flushes failed, or filing what they
    /// carried did); nil while acknowledgements go through.
    private(set) var stalledSince: (instant: ContinuousClock.Instant, date: Date)?

    /// What a committed group came to.
    struct Settlement {
        /// The jobs acknowledged, in the order they finished.
        var acknowledged: [Job]
        /// Whether the daemon has just stopped acknowledging (a stall began or goes on).
        var isStalled: Bool
    }

    /// Whether a group is with the committer.
    var isCommitting: Bool { !committing.isEmpty }

    /// Finished jobs not acknowledged yet: waiting for a flush, being committed, or flushed and
    /// waiting to be filed.
    var unacknowledgedCount: Int {
        awaitingFlush.count + committing.reduce(0) { $0 + $1.jobs.count } + awaitingFiling.count
    }

    /// A job finished: its changes are in the main context, the next flush carries them.
    mutating func finished(_ job: Job) {
        awaitingFlush.append(job)
    }

    /// The next group for the committer: the jobs flushed before whose filing failed, then every
    /// job that finished since the last group.
    mutating func beginFlush() -> [Job] {
        let group = awaitingFiling + awaitingFlush
        committing.append((group, awaitingFiling.count))
        awaitingFiling.removeAll()
        awaitingFlush.removeAll()
        return group
    }

    /// The oldest group's flush failed: its jobs go back in front of the jobs that finished
    /// meanwhile, in the order they finished, and acknowledging is stalled.
    mutating func flushFailed(at now: ContinuousClock.Instant, _ date: Date) -> [Job] {
        precondition(!committing.isEmpty, "a flush ended that was never begun")
        let group = committing.removeFirst().jobs
        awaitingFlush = group + awaitingFlush
        consecutiveFlushFailures += 1
        stalledSince = stalledSince ?? (now, date)
        return group
    }

    /// The oldest group's flush failed, and what the stack held unwritten was discarded (its
    /// write met rows that no merge policy could settle): the changes of the group's jobs are
    /// gone, and so are those of every job that finished since. Takes those jobs, to run again;
    /// the group's jobs that had been flushed before and only waited to be filed go back to wait.
    /// Acknowledging is not stalled: the next flush has nothing in its way.
    mutating func flushDiscarded() -> [Job] {
        precondition(!committing.isEmpty, "a flush ended that was never begun")
        let (group, flushedBefore) = committing.removeFirst()
        awaitingFiling = Array(group.prefix(flushedBefore)) + awaitingFiling
        let lost = Array(group.dropFirst(flushedBefore)) + awaitingFlush
        awaitingFlush.removeAll()
        return lost
    }

    /// The oldest group's flush committed: the jobs `isFiled` says were filed are acknowledged;
    /// the others wait for the next group. Acknowledging stays stalled while some could not be
    /// filed and filing failed (`filingFailed`), and resumes otherwise.
    mutating func flushCommitted(
        filingFailed: Bool, at now: ContinuousClock.Instant, _ date: Date, isFiled: (Job) -> Bool
    ) -> Settlement {
        precondition(!committing.isEmpty, "a flush ended that was never begun")
        let group = committing.removeFirst().jobs
        consecutiveFlushFailures = 0
        var acknowledged: [Job] = []
        for job in group {
            if isFiled(job) {
                acknowledged.append(job)
            } else {
                awaitingFiling.append(job)
            }
        }
        if filingFailed, !awaitingFiling.isEmpty {
            stalledSince = stalledSince ?? (now, date)
        } else {
            stalledSince = nil
        }
        return Settlement(acknowledged: acknowledged, isStalled: stalledSince != nil)
    }

    /// Whether claiming waits for acknowledgements to go through again: they are stalled, and
    /// `limit` jobs or more wait for one. Claiming more would only grow the main context with
    /// work that cannot be made durable.
    func pausesClaiming(limit: Int) -> Bool {
        stalledSince != nil && unacknowledgedCount >= limit
    }

    /// Whether `limit` finished jobs wait for a flush and none is under way, while
    /// acknowledgements go through (while they fail, the interval paces the retries).
    func isGroupFull(limit: Int) -> Bool {
        limit > 0 && awaitingFlush.count >= limit && committing.isEmpty && stalledSince == nil
    }

    /// Whether finished jobs wait for a flush and none is under way (its end looks again).
    var hasGroupToFlush: Bool {
        !awaitingFlush.isEmpty && committing.isEmpty
    }

    /// At shutdown, after the final flush: takes the jobs that no flush carried, and those flushed
    /// but not filed.
    mutating func takeUnacknowledged() -> (unflushed: [Job], unfiled: [Job]) {
        defer {
            awaitingFlush.removeAll()
            awaitingFiling.removeAll()
        }
        return (awaitingFlush, awaitingFiling)
    }
}
