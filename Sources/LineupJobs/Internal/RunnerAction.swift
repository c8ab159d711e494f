import Foundation
import LineupSpool
import Logging

/// What ``RunnerState`` asks the runner to do: the I/O, the threads and the clock that a pure
/// value has none of. The runner performs each in order, and feeds what comes of it back to the
/// state as an input (a task it made, a flush's outcome, a timer that fired).
enum RunnerAction<Held: HeldJob> {
    /// Return the job to the queue, named so that claimers skip it until `notBefore`.
    indirect case postpone(Held, JobInfo, until: Date)
    /// Count the claim of a job of `kind`, which names `namedQueue`, against the rates of the
    /// limits that cover it.
    case countClaim(kind: String?, namedQueue: String?)
    /// Make the job's first task now, to validate its parameters at claim time; then tell the
    /// state (``RunnerState/taskPrepared(claim:_:)``).
    case prepareTask(claim: String)
    /// Put the job's next task in its `OperationQueue`: `prepared` if there is one, else a new
    /// one for the record's attempt; then tell the state (``RunnerState/attemptQueued(claim:task:)``
    /// or ``RunnerState/attemptCouldNotStart(claim:_:)``).
    case startAttempt(claim: String, prepared: JobTask?)
    /// Count a failed attempt in the job's storage (its file name), then give the state the job
    /// as renamed (``RunnerState/failedAttemptRecorded(claim:_:)``).
    case recordFailedAttempt(claim: String)
    /// Settle the job (known to the log as `jobID`) in its storage: it leaves `running`, for
    /// `failed/` or back to `new/`.
    indirect case settle(Held, JobTransition, jobID: String)
    /// Stop a running task (a time limit or an operator's cancel); then tell the state whether
    /// it stopped (``RunnerState/stopRequested(claim:task:for:stopped:)``).
    case stopTask(claim: String, JobTask, AttemptStopReason)
    /// Feed `timer` back to the state after `delay`.
    case schedule(Duration, RunnerTimer)
    /// Flush soon, for this reason: on the coordinator's next turn, if it is still due then
    /// (``RunnerState/isEarlyFlushDue``).
    case flushSoon(FlushSummary.Reason)
    /// Tell the daemon's observers.
    case announce(DaemonEvent)
    /// Write one line to the daemon's log.
    case log(RunnerLogLine)
    /// Record the span of the job's attempt whose task could not be made (the job as it was
    /// then: the same actions may settle it).
    indirect case traceAttemptThatCouldNotStart(JobRecord<Held>, any Error)
    /// Claim again, if the window has room; `mayFindNewJobs` as in ``RunnerState/roomToClaim(mayFindNewJobs:roundTrip:now:)``.
    case claim(mayFindNewJobs: Bool)
    /// Wake the shutdown steps whose conditions may hold now.
    case resumeWaiters
    /// Rewrite `status.json`.
    case writeStatus
    /// Acknowledgements have failed for `flushFailureTimeout`: the daemon stops, saying why.
    case giveUpOnAcknowledgements(String)
}

/// What the runner feeds back to ``RunnerState`` once a delay is over.
enum RunnerTimer {
    /// A job's backoff before its next attempt is over.
    case retryDue(claim: String)
    /// The wait for the ids in a job's `after` list that no job had is up.
    case dependencyWaitExpired(claim: String, timeout: Duration)
    /// An attempt's time limit is up.
    case timeLimitReached(claim: String, JobTask, limit: Duration)
    /// A stopped task had its cancellation timeout to return.
    case stopGraceOver(claim: String, JobTask, AttemptStopReason)
}

/// One line of the daemon's log, as ``RunnerState`` words it.
struct RunnerLogLine {
    var level: Logger.Level
    var message: Logger.Message
    var metadata: Logger.Metadata

    init(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}
