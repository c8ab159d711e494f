package import Foundation
package import LineupSpool
package import LineupStore
package import Logging

/// Where the runner's jobs wait and where they are settled: a spool directory
/// (``SpoolJobStorage``, one machine), or a table in the PostgreSQL database that the store lives
/// in (LineupPostgres's `DatabaseJobStorage`, several daemons on several hosts).
///
/// The runner keeps the books of the jobs it holds (dependencies, attempts, groups of
/// acknowledgements); the storage keeps the jobs themselves, and decides what an acknowledgement
/// is. That is where the two differ most: the spool files a job in `done/` after the flush that
/// carried its rows (at least once: a crash between the two runs it again), the database marks
/// it done in the flush's own transaction (exactly once).
///
/// The runner calls the claiming and settling methods on its coordinator, and
/// ``commit(_:flushing:logger:)`` on its commit queue.
package protocol JobStorage: Sendable {
    /// The jobs it hands out when claimed, and takes back to settle them.
    associatedtype Held: HeldJob

    /// Where the jobs are, for messages: the spool's path, or the database's URL.
    var location: String { get }

    /// How long a claim takes lately, where one claim is a round trip that several jobs can share
    /// (a database: one statement claims up to `limit` jobs); nil where a claim is a step a job
    /// (a spool: a rename each). The runner asks a storage with round trips only once the jobs in
    /// its hands have fallen to half its claim window, and then for the whole room: each statement
    /// takes half a window of jobs or more, and the daemon never holds more than its window. Where
    /// no window is configured, the round trip sizes it (``ClaimWindow``).
    var claimRoundTrip: Duration? { get }

    /// The next job that is due, claimed for this process; nil when none is. A storage that
    /// claims in batches may claim up to `limit` jobs (the room of the runner's window) and hand
    /// out the rest at the next calls.
    func claimNext(upTo limit: Int) throws -> Held?

    /// The next job that is due and that `filter` lets through (nothing paused, no limit full),
    /// claimed for this process; nil when none is. Called instead of ``claimNext(upTo:)`` only
    /// while something is paused or limited, so that the plain claim costs nothing more.
    func claimNext(filter: ClaimFilter, upTo limit: Int) throws -> Held?

    /// The kinds and queues paused now, sorted: the spool's `paused.json`, or the database's
    /// `lineup_paused`.
    func pausedScopes() throws -> [JobScope]

    /// Pauses (`paused` true) or resumes `scope` where every claimer of these jobs reads it;
    /// returns whether that changed anything.
    func setPaused(_ scope: JobScope, _ paused: Bool) throws -> Bool

    /// The state of each limit as the storage counts it across every daemon; nil when the
    /// runner's own counts are the limits' (a spool: one daemon).
    func sharedLimitStates(_ filter: ClaimFilter) throws -> [DaemonStatus.LimitState]?

    /// Counts a failed attempt where a restart reads it; returns the job as it is now.
    func recordFailedAttempt(of job: Held) throws -> Held

    /// Takes the job out of `running` by `transition`: the one way a job leaves this daemon's
    /// hands other than by the flush that acknowledges it (``commit(_:flushing:logger:)``).
    func settle(_ job: Held, _ transition: JobTransition) throws

    /// At shutdown, gives back what the queue holds claimed without having handed it to the
    /// runner (the rest of bulk files; jobs claimed ahead).
    func releaseUnhandedClaims() throws

    /// Which of `ids` belong to jobs that are queued but not due yet, or claimed elsewhere: a
    /// dependency on one of them is waited for however long that takes.
    func pendingJobIDs(among ids: Set<String>) throws -> Set<String>

    /// How the job with this id was settled, by this run or another; nil when no settled job has
    /// it. A job this queue failed (``settle(_:_:)``) or acknowledged (``commit(_:flushing:logger:)``)
    /// reads as such at once: jobs parked on it are judged again right after.
    func settledOutcome(ofJobID id: String) -> SettledJobOutcome?

    /// When a job holding `key` (its `uniqueKey`) was last done, by this run or another; nil when
    /// none is known. The runner refuses a job with `uniqueFor` within that period of it. A
    /// storage that judges `uniqueFor` itself when jobs are enqueued (the database's) says nil.
    func lastDone(withUniqueKey key: String) -> Date?
    /// The report of the settled job with this id (done wins over failed, as in
    /// ``settledOutcome(ofJobID:)``); nil when no settled job has it, or its report cannot be
    /// read.
    func settledReport(ofJobID id: String) -> DependencyReport?

    /// The ids or names of the jobs that operators asked to cancel while they run, of those this
    /// daemon may hold. Asked a few times a second: cheap when there are none.
    func cancellationRequests() throws -> [String]

    /// Settles the requests that ``cancellationRequests()`` returned: those the runner
    /// `actedOn` are forgotten; of those naming no job it holds (`notHeld`), the ones whose job no
    /// longer runs here are dropped (it had finished) and returned, while the others stay for
    /// when the runner holds it (a job claimed ahead, a bulk's line not handed out yet).
    func settleCancellationRequests(actedOn: [String], notHeld: [String]) throws -> [String]

    /// Prepares the acknowledgement of a job that succeeded, on the thread of its task, so that
    /// what is left after the flush is as little as possible.
    func stage(_ report: JobResultReport, of job: Held, logger: Logger) -> FinishedJob<Held>

    /// Flushes `container` and acknowledges `jobs`, whose changes the main context holds (every
    /// one saved into it before this call). Nothing is acknowledged when the flush fails.
    func commit(_ jobs: [FinishedJob<Held>], flushing container: PersistentContainer, logger: Logger) -> CommitOutcome
}

/// A finished job to acknowledge once the flush that carries its changes has committed.
package struct FinishedJob<Held: HeldJob>: Sendable {
    package let claimed: Held
    package let report: JobResultReport
    /// The job's `uniqueKey`: once it is acknowledged, a job with `uniqueFor` may be refused for it.
    package var uniqueKey: String?
    /// Its report written into the spool's `tmp/`; nil when that failed (filing tries again),
    /// or when the storage keeps reports elsewhere.
    let staged: StagedReport?

    package init(claimed: Held, report: JobResultReport, staged: StagedReport?) {
        self.claimed = claimed
        self.report = report
        self.staged = staged
    }
}

/// What committing a group of finished jobs did (``JobStorage/commit(_:flushing:logger:)``).
package struct CommitOutcome: Sendable {
    /// The store flush, or why it failed (then nothing was acknowledged).
    let flush: Result<FlushReport, any Error>
    /// Claims of the jobs acknowledged.
    let filed: Set<String>
    /// Why a job of the group could not be acknowledged, if one could not.
    var filingError: (any Error)? = nil
    /// Whether the flush failed on a conflict that no merge policy settled, and what the stack
    /// held unwritten was discarded (see ``GroupCommitter``): the jobs whose changes it held run
    /// again.
    var discardedUnwritten = false

    package init(flush: Result<FlushReport, any Error>, filed: Set<String>, filingError: (any Error)? = nil) {
        self.flush = flush
        self.filed = filed
        self.filingError = filingError
    }
}

/// How a job leaves `running` without a flush (``JobStorage/settle(_:_:)``).
package enum JobTransition: Sendable {
    /// Failed for good, with its report: `failed/`, or the table's `failed`.
    case failed(JobFailureReport)
    /// Given back unrun (a stop), for the next claim by any daemon.
    case released
    /// Claimed before its `notBefore` time: given back, to be claimed then.
    case postponed(until: Date)
}
