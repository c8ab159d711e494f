import Foundation
import LineupSpool
import LineupStore
import Logging

/// What a flush that ended came to, for its caller: its summary, or why it failed.
typealias FlushResult = Result<FlushSummary, any Error>

/// The runner as a state machine: every job the daemon holds (as values), the group commit's
/// books and the phase, with no I/O, no threads and no clock of its own.
///
/// Each input (a job claimed, a task made, an attempt ended, a timer fired, a flush begun or
/// ended, a cancel, a stop) changes the books and returns the ``RunnerAction``s to perform, in
/// order. ``JobRunner`` performs them on its coordinator and feeds what comes of them back as
/// inputs. A job's ``JobRecord/State`` changes here alone, by the moves of ``JobStage/moves``.
///
/// What reaches in from outside is read-only: the job storage's answers about jobs it settled
/// (``StorageAnswers``), the jitter of retry delays, and the date that failure reports are
/// stamped with. Tests give them as plain values.
struct RunnerState<Held: HeldJob> {
    typealias Record = JobRecord<Held>
    typealias Action = RunnerAction<Held>

    /// What the job storage says of jobs that this state does not hold: read, never written.
    struct StorageAnswers {
        /// How the job with this id was settled; nil when no settled job had it.
        var settledOutcome: (String) -> SettledJobOutcome?
        /// When a job holding this `uniqueKey` was last done; nil when none is known.
        var lastDone: (String) -> Date?
        /// Which of these ids belong to jobs queued for later; nil when that cannot be read.
        var pendingJobIDs: (Set<String>) -> Set<String>?
    }

    /// Unsettled jobs by claim (names may repeat; claims do not).
    private(set) var live: [String: Record] = [:]
    /// Which unsettled jobs have which ids, and which parked jobs wait for them.
    private(set) var dependencies = DependencyBook()
    /// The claims of finished jobs on their way to their acknowledgement (group commit).
    private(set) var acknowledgements = AcknowledgementPipeline<String>()
    /// Tasks in the queues (not completed).
    private(set) var queuedTaskCount = 0
    private(set) var phase = DaemonStatus.Phase.running
    /// A flush before the interval is asked for (``RunnerAction/flushSoon(_:)``) and not begun.
    private(set) var earlyFlushScheduled = false
    /// The last flush, the last ones that did something (newest first), and the pace of
    /// acknowledgements, for `status.json`.
    private(set) var lastFlush: FlushSummary?
    private(set) var recentFlushes: [FlushSummary] = []
    private(set) var acknowledgementRate = AcknowledgementRate()
    /// The main context's unsaved rows, as last counted.
    var mainContextUnsavedRows: Int?
    /// Tasks of jobs failed for good because they did not stop when asked to: their threads
    /// still run (a thread cannot be killed), and shutdown must know.
    private(set) var runawayTasks: [ObjectIdentifier: JobInfo] = [:]
    /// How many claimed jobs the runner holds at most, following the jobs where not configured.
    var claimWindow: ClaimWindow
    /// Whether the last claim, unnarrowed by pauses or limits, found nothing. Then room freed by a
    /// finished job does not claim again (each such claim would find nothing too; on a database,
    /// an empty statement per job a burst drains) until something may have queued a job: a
    /// notification, a poll, the watcher's hint, a resume, new settings.
    private(set) var lastClaimFoundNothing = false
    /// How the jobs this state settled were settled, by id: their dependents are judged by it
    /// before the storage has been told.
    private var settledHere = SettledJobOutcomes()
    /// The daemon's configuration, as last reloaded.
    private(set) var configuration: DaemonConfiguration
    let routing: QueueRouting
    let storage: StorageAnswers
    /// The level of the daemon's logger: lines below it are not asked for, and not worded
    /// (most lines of a job's way, claimed or acknowledged, are below a busy daemon's level).
    private(set) var logLevel: Logger.Level
    let jitter: () -> Double
    let reportDate: () -> Date

    init(
        configuration: DaemonConfiguration, logLevel: Logger.Level = .info, storage: StorageAnswers,
        jitter: @escaping () -> Double, reportDate: @escaping () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.logLevel = logLevel
        self.routing = configuration.routing
        self.claimWindow = ClaimWindow(configuration)
        self.storage = storage
        self.jitter = jitter
        self.reportDate = reportDate
    }

    var isStopping: Bool { phase != .running }

    // MARK: - Settings

    /// A reload: new settings take effect from their next use; claiming goes on by them.
    mutating func settingsChanged(_ configuration: DaemonConfiguration, logLevel: Logger.Level) -> [Action] {
        self.configuration = configuration
        self.logLevel = logLevel
        claimWindow = ClaimWindow(configuration)
        return [.claim(mayFindNewJobs: true)]
    }

    // MARK: - Claiming

    /// A claim round begins: returns the claim window's size for it, or nil when the round
    /// claims nothing: a claim found nothing since and `mayFindNewJobs` is false (room was only
    /// freed, by a job that finished), or a storage whose claim is a round trip has more than
    /// half the window in hand (then a statement claims half a window at least; see
    /// `JobStorage.claimRoundTrip`).
    mutating func claimRoundBegins(mayFindNewJobs: Bool, roundTrip: Duration?, now: ContinuousClock.Instant) -> Int? {
        if mayFindNewJobs {
            lastClaimFoundNothing = false
        } else if lastClaimFoundNothing {
            return nil
        }
        let window = claimWindow.size(roundTrip: roundTrip, at: now)
        if roundTrip != nil, jobsInHand > window / 2 { return nil }
        return window
    }

    /// How many more jobs this round may claim within `window`; nil for none: the runner is
    /// stopping, the window is full, or acknowledgements are stalled (``isClaimingPaused``).
    func roomToClaim(within window: Int) -> Int? {
        guard !isStopping, jobsInHand < window, !isClaimingPaused else { return nil }
        return window - jobsInHand
    }

    /// The jobs that count against the claim window: those in the queues, and those parked on
    /// a job in hand (they run as soon as it settles).
    private var jobsInHand: Int {
        queuedTaskCount + dependencies.parkedOnJobsInHandCount
    }

    /// A claim found nothing; `narrowed` when pauses or limits held jobs back (finishing a job
    /// may free what they held).
    mutating func claimFoundNothing(narrowed: Bool) {
        lastClaimFoundNothing = !narrowed
    }

    /// Whether claiming waits for acknowledgements to go through again: they are failing (a
    /// full disk) and the finished jobs waiting for one have reached the bound. Claiming more
    /// would only grow the main context with work that cannot be made durable.
    var isClaimingPaused: Bool {
        acknowledgements.pausesClaiming(limit: configuration.flushBacklogLimit)
    }

    /// A job was claimed: reads its file; one scheduled for later goes back; an invalid one
    /// fails; the others have their first task made (which validates their parameters).
    mutating func claimed(_ claimed: Held, now: Date, at instant: ContinuousClock.Instant) -> [Action] {
        claimWindow.noteClaimed(at: instant)
        let file: JobFile?
        var invalid: JobError?
        do {
            file = try claimed.decodeJobFile()
        } catch {
            file = nil
            let code: JobError.Code = error.code == .malformedJobFile ? .malformedJobFile : .invalidParameters
            invalid = JobError(code, error.message, jobFile: claimed.enqueuedFileName, isRetryable: false, underlying: error)
        }
        if let notBefore = file?.notBefore, notBefore > now {
            let info = JobInfo(
                name: claimed.name, claim: claimed.claim, id: file?.id, kind: file?.kind, attempt: claimed.failedAttempts + 1)
            return [.postpone(claimed, info, until: notBefore)]
        }
        let policy = configuration.retry.overridden(maxAttempts: file?.maxAttempts, baseDelay: file?.baseDelay)
        var record = Record(claimed: claimed, file: file, policy: policy)
        // Failed attempts of earlier runs count: the number lives in the file name.
        record.attempt = claimed.failedAttempts + 1
        live[record.claim] = record
        var actions: [Action] = [.countClaim(kind: file?.kind, namedQueue: file?.queue), .announce(.jobClaimed(record.info))]
        log(.debug, "job claimed", ["job": "\(record.jobID)", "file": "\(claimed.enqueuedFileName)", "claim": "\(claimed.claim)"], into: &actions)
        admit(record, invalid: invalid, now: now, into: &actions)
        return actions
    }

    /// Fails the job at once when its file or parameters are invalid, its attempts are used up
    /// or its `uniqueKey` is held; otherwise asks for its first task.
    private mutating func admit(_ record: Record, invalid: JobError?, now: Date, into actions: inout [Action]) {
        if let invalid {
            failPermanently(record.claim, invalid, into: &actions)
            return
        }
        guard let file = record.file else { return }
        if record.claimed.failedAttempts >= record.policy.maxAttempts {
            // Its attempts were used up before a restart, or maxAttempts was lowered since.
            failPermanently(
                record.claim,
                JobError(
                    .jobFailed,
                    "\(record.claimed.failedAttempts) attempts failed already, and maxAttempts is \(record.policy.maxAttempts)",
                    jobFile: record.claimed.enqueuedFileName, isRetryable: false),
                into: &actions)
            return
        }
        // Held by a job queued or running: one that has finished and waits for its flush holds
        // it no more (its file may be in done/ already, the flush's outcome on its way here).
        if let key = file.uniqueKey,
            let holder = live.values.first(where: { $0.claim != record.claim && $0.file?.uniqueKey == key && !$0.hasFinishedRunning })
        {
            failPermanently(
                record.claim,
                JobError(
                    .duplicateJob,
                    "refused: job \(holder.jobID) (\(holder.claimed.enqueuedFileName)) holds uniqueKey `\(key)` and is queued or running",
                    jobFile: record.claimed.enqueuedFileName, isRetryable: false),
                into: &actions)
            return
        }
        // With uniqueFor, a job that finished and waits for its flush is done as far as the key
        // is concerned; one filed in done/ holds it for the period after it finished.
        if let key = file.uniqueKey, let period = file.uniqueFor,
            let doneAt = live.values.contains(where: { $0.hasFinishedRunning && $0.file?.uniqueKey == key })
                ? now : storage.lastDone(key),
            doneAt > now.addingTimeInterval(-period.timeInterval)
        {
            failPermanently(
                record.claim,
                JobError(
                    .duplicateJob,
                    "refused: a job holding uniqueKey `\(key)` was done at \(doneAt.ISO8601Format()), within uniqueFor (\(Self.secondsText(period)) s)",
                    jobFile: record.claimed.enqueuedFileName, isRetryable: false),
                into: &actions)
            return
        }
        if routing.ignores(namedQueue: file.queue), let name = file.queue {
            // Refusing it would lose work whenever producers name a queue before the daemons
            // are configured with it; the kind's queue bounds it as any job of the kind.
            log(.warning, "job names a queue this daemon has not configured; it runs in its kind's queue",
                ["job": "\(record.jobID)", "queue": "\(name)"], into: &actions)
        }
        actions.append(.prepareTask(claim: record.claim))
    }

    /// The job's first task was made (or could not be): it waits for its dependencies, or runs.
    mutating func taskPrepared(claim: String, _ task: Result<JobTask, any Error>) -> [Action] {
        guard let record = live[claim], let file = record.file else { return [] }
        var actions: [Action] = []
        switch task {
        case let .failure(error):
            actions.append(.traceAttemptThatCouldNotStart(record, error))
            failPermanently(claim, error, into: &actions)
        case let .success(task):
            live[claim]?.preparedTask = task
            dependencies.hold(claim: claim, id: file.id, after: file.after)
            resolveDependencies(claim, into: &actions)
        }
        return actions
    }

    // MARK: - Dependencies

    /// Queues the job if every job in its `after` list is done; fails it if one failed or if it
    /// waits for itself (a cycle); otherwise parks it until those jobs settle. Called at admission
    /// and again each time a job it waits for settles.
    private mutating func resolveDependencies(_ claim: String, into actions: inout [Action]) {
        guard let record = live[claim], let file = record.file else { return }
        switch verdict(on: file, of: claim) {
        case .ready:
            dependencies.unpark(claim)
            startAttempt(claim, into: &actions)
        case let .cycle(through: id):
            failPermanently(
                claim,
                JobError(
                    .dependencyCycle,
                    "job \(record.jobID) waits for job \(id), which waits (directly or not) for job \(record.jobID)",
                    jobFile: record.claimed.enqueuedFileName),
                into: &actions)
        case let .dependencyFailed(id, reason):
            failPermanently(
                claim, JobError(.dependencyFailed, "job \(id) in `after` failed: \(reason)", jobFile: record.claimed.enqueuedFileName),
                into: &actions)
        case let .waiting(inHand, unknown):
            park(claim, inHand: inHand, unknown: unknown, into: &actions)
        }
    }

    /// What the job's `after` list comes to now; how jobs not in hand were settled is this
    /// state's to say for those it settled, the storage's for the others.
    private func verdict(on file: JobFile, of claim: String) -> DependencyBook.Verdict {
        dependencies.verdict(for: claim, after: file.after, runsAfterFailures: file.afterSettled) { id in
            settledHere[id] ?? storage.settledOutcome(id)
        }
    }

    /// Parks the job until the jobs it waits for settle. A dependency that has finished and only
    /// waits for its flush is flushed soon; an id no job has is waited for up to
    /// ``DaemonConfiguration/dependencyWaitTimeout``.
    private mutating func park(_ claim: String, inHand: Set<String>, unknown: Set<String>, into actions: inout [Action]) {
        guard !isStopping else {
            release(claim, into: &actions)
            return
        }
        guard var record = live[claim] else { return }
        let awaited = inHand.union(unknown)
        let wasParked = !dependencies.awaitedIDs(of: claim).isEmpty
        dependencies.park(claim, on: awaited, inHand: !inHand.isEmpty)
        record.move(to: .waitingForDependencies(unresolved: awaited))
        if !wasParked {
            actions.append(.announce(.jobWaitingForDependencies(record.info, ids: awaited.sorted())))
            log(.info, "job waits for the jobs in its after list",
                ["job": "\(record.jobID)", "after": "\(awaited.sorted().joined(separator: ","))"], into: &actions)
        }
        for id in inHand {
            if let holder = dependencies.holder(ofID: id), live[holder]?.hasFinishedRunning == true {
                scheduleEarlyFlush(.dependency, into: &actions)
            }
        }
        if !unknown.isEmpty, !record.awaitsUnknownDependencies {
            record.awaitsUnknownDependencies = true
            let timeout = configuration.dependencyWaitTimeout
            actions.append(.schedule(timeout, .dependencyWaitExpired(claim: claim, timeout: timeout)))
        }
        live[claim] = record
    }

    /// The wait for ids that no job had is up: fails the job if some still have none, unless
    /// those are scheduled for later or held by another daemon. If what it waits for has changed
    /// meanwhile without a settlement in this run to wake it (a job settled by an earlier run
    /// turned up in `done/`, say), it is judged again now.
    private mutating func dependencyWaitExpired(claim: String, timeout: Duration, into actions: inout [Action]) {
        guard !isStopping, var record = live[claim], case .waitingForDependencies = record.state, let file = record.file
        else { return }
        record.awaitsUnknownDependencies = false
        live[claim] = record
        guard case let .waiting(_, unknown) = verdict(on: file, of: claim), !unknown.isEmpty else {
            resolveDependencies(claim, into: &actions)
            return
        }
        // A job scheduled for later is waited for however long that is.
        if let pending = storage.pendingJobIDs(unknown), !pending.isEmpty {
            record.awaitsUnknownDependencies = true
            live[claim] = record
            actions.append(.schedule(timeout, .dependencyWaitExpired(claim: claim, timeout: timeout)))
            return
        }
        let ids = unknown.sorted().joined(separator: ", ")
        failPermanently(
            claim,
            JobError(
                .unknownDependency,
                "no job with id \(ids) (named in `after`) was queued, running, done or failed within \(DaemonConfiguration.seconds(timeout)) s",
                jobFile: record.claimed.enqueuedFileName),
            into: &actions)
    }

    // MARK: - Attempts

    /// Asks for the job's next task: the one made at claim time, or a new one for its next
    /// attempt. At a stop, the job goes back instead.
    private mutating func startAttempt(_ claim: String, into actions: inout [Action]) {
        guard !isStopping else {
            release(claim, into: &actions)
            return
        }
        guard live[claim] != nil else { return }
        let prepared = live[claim]?.takePreparedTask()
        actions.append(.startAttempt(claim: claim, prepared: prepared))
    }

    /// The attempt's task is in its queue.
    mutating func attemptQueued(claim: String, task: JobTask) {
        live[claim]?.move(to: .queued(task))
        queuedTaskCount += 1
    }

    /// The attempt's task could not be made: the attempt failed before it began.
    mutating func attemptCouldNotStart(claim: String, _ error: any Error) -> [Action] {
        guard let record = live[claim] else { return [] }
        var actions: [Action] = [.traceAttemptThatCouldNotStart(record, error)]
        handleFailure(claim, error, into: &actions)
        return actions
    }

    /// The storage counted a failed attempt: the job is held under its new name.
    mutating func failedAttemptRecorded(claim: String, _ renamed: Held) {
        live[claim]?.claimed = renamed
    }

    /// A delay the state asked for is over.
    mutating func timerFired(_ timer: RunnerTimer) -> [Action] {
        var actions: [Action] = []
        switch timer {
        case let .retryDue(claim):
            guard let record = live[claim], case .waitingForRetry = record.state else { break }
            startAttempt(claim, into: &actions)
        case let .dependencyWaitExpired(claim, timeout):
            dependencyWaitExpired(claim: claim, timeout: timeout, into: &actions)
        case let .timeLimitReached(claim, task, limit):
            guard live[claim]?.task === task else { break }
            actions.append(.stopTask(claim: claim, task, .timedOut(after: limit)))
        case let .stopGraceOver(claim, task, reason):
            giveUpOnStoppedTask(claim: claim, task: task, stoppedFor: reason, into: &actions)
        }
        return actions
    }

    /// Asks for a line of the log, if the logger writes lines of its level; only then is it worded.
    func log(
        _ level: Logger.Level, _ message: @autoclosure () -> Logger.Message,
        _ metadata: @autoclosure () -> Logger.Metadata = [:], into actions: inout [Action]
    ) {
        guard level >= logLevel else { return }
        actions.append(.log(RunnerLogLine(level, message(), metadata())))
    }

    /// `3600` or `7.5`: a period as a job file says it, in seconds, without a needless fraction.
    static func secondsText(_ period: Duration) -> String {
        let seconds = period.timeInterval
        return seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
    }

    /// The error as a sentence that leads with what went wrong and names the job file as it was
    /// enqueued last, as ``JobError/description`` does; `note` goes between the two.
    func describe(_ error: any Error, of record: Record, adding note: String = "") -> String {
        if var error = error as? JobError {
            error.message += note
            return error.naming(jobFile: record.claimed.enqueuedFileName).description
        }
        return "\(record.file?.kind ?? "job") failed: \(error)\(note) (job file \(record.claimed.enqueuedFileName))"
    }
}

// MARK: - Attempts that end, and settles

extension RunnerState {
    /// A task left its queue: keep its result for the flush, retry it, fail it or release it.
    ///
    /// - Parameter finished: for a success, its report staged on the task's thread.
    mutating func attemptEnded(
        claim: String, task: JobTask, _ ending: AttemptEnding, finished: FinishedJob<Held>?
    ) -> [Action] {
        if let info = runawayTasks.removeValue(forKey: ObjectIdentifier(task)) {
            return [
                .log(
                    .init(
                        .warning, "the task of a job that timed out has stopped at last; what it did was discarded",
                        ["job": "\(info.id ?? info.name)"])),
                .resumeWaiters,
            ]
        }
        guard let index = live.index(forKey: claim), live.values[index].task === task else { return [] }
        queuedTaskCount -= 1
        let discardedRows = live.values[index].attemptEnded(startedAt: ending.startedAt)
        var actions: [Action] = []
        switch (ending.result, discardedRows) {
        case let (.succeeded, discarded?):
            // What it saved before the discard is gone: the job runs again.
            handleFailure(claim, discarded, into: &actions)
        case let (.succeeded(outcome), nil):
            guard let finished else { preconditionFailure("a successful task reached the coordinator without its report") }
            live.values[index].move(to: .awaitingFlush(finished))
            acknowledgements.finished(claim)
            let record = live.values[index]
            actions.append(.announce(.jobFinished(record.info)))
            log(.info, "job finished; acknowledged at the next flush",
                ["job": "\(record.jobID)", "attempt": "\(record.attempt)", "summary": "\(outcome.summary)"], into: &actions)
            if let id = record.file?.id, dependencies.hasWaiters(forID: id) {
                scheduleEarlyFlush(.dependency, into: &actions)
            }
            flushIfGroupIsFull(into: &actions)
        case (.cancelled, _):
            release(claim, into: &actions)
        case let (.failed(error), _):
            live[claim]?.keptRowChanges += ending.keptRowChanges
            handleFailure(claim, error, into: &actions)
        }
        actions.append(.resumeWaiters)
        actions.append(.claim(mayFindNewJobs: false))
        flushIfIdle(into: &actions)
        return actions
    }

    /// The runner asked a task to stop (``RunnerAction/stopTask(claim:_:_:)``); `stopped` says
    /// whether it will (a task that is saving already finishes instead). One that stops has
    /// the cancellation timeout to return.
    mutating func stopRequested(claim: String, task: JobTask, for reason: AttemptStopReason, stopped: Bool) -> [Action] {
        guard let record = live[claim], record.task === task else { return [] }
        switch (reason, stopped) {
        case (_, false) where reason == .cancelledByOperator:
            // Saving already: its end decides.
            return [.log(.init(.info, "job asked to be cancelled is finishing already", ["job": "\(record.jobID)"]))]
        case (_, false):
            return []
        case let (.timedOut(limit), true):
            return [
                .log(
                    .init(
                        .warning, "job timed out; cancelling it",
                        [
                            "job": "\(record.jobID)", "attempt": "\(record.attempt)",
                            "timeout_s": "\(DaemonConfiguration.seconds(limit))",
                        ])),
                .schedule(configuration.cancellationTimeout, .stopGraceOver(claim: claim, task, reason)),
            ]
        case (.cancelledByOperator, true):
            return [
                .log(
                    .init(
                        .warning, "job cancelled by an operator; stopping it",
                        ["job": "\(record.jobID)", "attempt": "\(record.attempt)"])),
                .schedule(configuration.cancellationTimeout, .stopGraceOver(claim: claim, task, reason)),
            ]
        }
    }

    /// After the cancellation timeout, a stopped task that still runs is given up on: the job
    /// fails for good without it, and shutdown knows of its thread (``runawayTasks``).
    mutating func giveUpOnStoppedTask(
        claim: String, task: JobTask, stoppedFor reason: AttemptStopReason, into actions: inout [Action]
    ) {
        guard var record = live[claim], record.task === task else { return }
        // Still running: give up on the thread, not on the promise that the job ends.
        queuedTaskCount -= 1
        record.startedAt = task.startedAt
        live[claim] = record
        runawayTasks[ObjectIdentifier(task)] = record.info
        failPermanently(claim, task.error(for: reason, stopped: false), into: &actions)
        actions.append(.resumeWaiters)
        actions.append(.claim(mayFindNewJobs: false))
    }

    /// Retries the job after its backoff delay, or fails it for good.
    mutating func handleFailure(_ claim: String, _ error: any Error, into actions: inout [Action]) {
        guard var record = live[claim] else { return }
        guard ErrorClassification.isRetryable(error), record.policy.allowsRetry(afterAttempt: record.attempt) else {
            failPermanently(claim, error, into: &actions)
            return
        }
        if isStopping {
            // It would be retried: give it back to new/ for the next start instead.
            release(claim, into: &actions)
            return
        }
        let delay = record.policy.delay(afterAttempt: record.attempt, jitter: jitter())
        let reason = describe(error, of: record)
        record.move(to: .waitingForRetry)
        live[claim] = record
        // The retry goes on if the count cannot be written; only a restart before it succeeds
        // would forget this attempt.
        actions.append(.recordFailedAttempt(claim: claim))
        actions.append(.announce(.retryScheduled(record.info, delay: delay, error: reason)))
        log(
            .warning, "job attempt failed; retrying",
            [
                "job": "\(record.jobID)", "attempt": "\(record.attempt)", "of": "\(record.policy.maxAttempts)",
                "delay_ms": "\(Int(delay / .milliseconds(1)))", "error": "\(reason)",
            ], into: &actions)
        actions.append(.schedule(delay, .retryDue(claim: claim)))
    }

    /// Fails the job for good: its error report, and `failed/`.
    mutating func failPermanently(_ claim: String, _ error: any Error, into actions: inout [Action]) {
        guard let record = live[claim] else { return }
        let keptRows =
            record.keptRowChanges == 0
            ? ""
            : " (before failing, its attempts had saved \(record.keptRowChanges) row change(s) in chunks; "
                + "they are kept and may be on disk, and a re-run of the job upserts them)"
        let reason = describe(error, of: record, adding: keptRows)
        var report = JobFailureReport(
            name: record.name, id: record.file?.id, kind: record.file?.kind, reason: reason, attempts: record.attempt,
            interruptions: record.claimed.interruptions, retryable: ErrorClassification.isRetryable(error),
            startedAt: record.startedAt, finishedAt: reportDate())
        report.keptRowChanges = record.keptRowChanges
        actions.append(.settle(record.claimed, .failed(report), jobID: record.jobID))
        if let id = record.file?.id {
            settledHere.note(id, .failed(reason: reason))
        }
        settle(
            claim,
            announcing: [
                .announce(.jobFailed(record.info, report)),
                .log(.init(.error, "job failed", ["job": "\(record.jobID)", "attempts": "\(record.attempt)", "error": "\(reason)"])),
            ],
            into: &actions)
    }

    /// Returns the job to `new/` (a stop): it runs again at the next start.
    mutating func release(_ claim: String, into actions: inout [Action]) {
        guard let record = live[claim] else { return }
        actions.append(.settle(record.claimed, .released, jobID: record.jobID))
        settle(
            claim,
            announcing: [
                .announce(.jobReleased(record.info)),
                .log(.init(.info, "job returned to new/", ["job": "\(record.jobID)"])),
            ],
            into: &actions)
    }

    /// Forgets the job, announces it, then judges again the jobs parked on it: they may run now,
    /// or fail, after the job's own settlement is announced.
    mutating func settle(_ claim: String, announcing announcement: [Action] = [], into actions: inout [Action]) {
        guard var record = live.removeValue(forKey: claim) else { return }
        record.move(to: .settled)
        actions += announcement
        let waiters = dependencies.settle(claim: claim, id: record.file?.id)
        for waiting in waiters.sorted() where live[waiting] != nil {
            resolveDependencies(waiting, into: &actions)
        }
    }

    // MARK: - Operators' cancels

    /// Operators asked to cancel the jobs with these ids or names: each one held stops (a
    /// running task) or fails at once (a job that waits); one that finished is kept. Returns
    /// the requests acted on and those naming no job held, for the storage to settle.
    mutating func operatorsCancelled(_ requests: [String]) -> (actedOn: [String], notHeld: [String], actions: [Action]) {
        var actedOn: [String] = []
        var notHeld: [String] = []
        var actions: [Action] = []
        for job in requests {
            let held = live.values.filter { $0.name == job || $0.file?.id == job }.map(\.claim)
            if held.isEmpty {
                notHeld.append(job)
                continue
            }
            actedOn.append(job)
            for claim in held.sorted() {
                cancelByOperator(claim, into: &actions)
            }
        }
        return (actedOn, notHeld, actions)
    }

    /// Cancels a job held, as an operator asked: a running task stops and its unsaved work is
    /// discarded; a job that waits is failed at once. Either way it fails for good, with
    /// ``JobError/Code/cancelledByOperator``, and is not retried.
    private mutating func cancelByOperator(_ claim: String, into actions: inout [Action]) {
        guard let record = live[claim] else { return }
        switch record.state {
        case .claimed, .waitingForDependencies, .waitingForRetry:
            dependencies.unpark(claim)
            log(.warning, "job cancelled by an operator", ["job": "\(record.jobID)", "attempt": "\(record.attempt)"], into: &actions)
            failPermanently(
                claim,
                JobError(
                    .cancelledByOperator, "job \(record.jobID) was cancelled by an operator before it ran",
                    jobFile: record.claimed.enqueuedFileName),
                into: &actions)
        case let .queued(task):
            actions.append(.stopTask(claim: claim, task, .cancelledByOperator))
        case .awaitingFlush:
            log(.info, "job asked to be cancelled had finished; it is kept", ["job": "\(record.jobID)"], into: &actions)
        case .settled:
            break
        }
    }
}

// MARK: - Flushes

extension RunnerState {
    /// A flush begins: takes the group for the committer, the jobs flushed before whose filing
    /// failed first. Every job in it saved into the main context before this point (its
    /// completion reached the coordinator after its save), and the committer flushes after it,
    /// so the flush carries their changes.
    mutating func flushBegins() -> [FinishedJob<Held>] {
        earlyFlushScheduled = false
        return acknowledgements.beginFlush().compactMap { claim -> FinishedJob<Held>? in
            guard case let .awaitingFlush(job) = live[claim]?.state else { return nil }
            return job
        }
    }

    /// Whether a flush asked for by ``RunnerAction/flushSoon(_:)`` is still wanted when its turn comes.
    var isEarlyFlushDue: Bool {
        earlyFlushScheduled && !isStopping
    }

    /// The oldest group's flush ended: acknowledges the jobs filed in `done/` (their dependents
    /// may start), keeps the others for the next flush, records the flush for `status.json`.
    mutating func flushEnded(
        _ reason: FlushSummary.Reason, after duration: Duration, _ outcome: CommitOutcome,
        at now: ContinuousClock.Instant, date: Date
    ) -> (FlushResult, [Action]) {
        let report: FlushReport
        switch outcome.flush {
        case let .failure(error) where outcome.discardedUnwritten:
            return (.failure(error), flushDiscarded(reason, error, after: duration))
        case let .failure(error):
            return (.failure(error), flushFailed(reason, error, after: duration, at: now, date: date))
        case let .success(flushed):
            report = flushed
        }
        var actions: [Action] = []
        let wasPaused = isClaimingPaused
        let settlement = acknowledgements.flushCommitted(filingFailed: outcome.filingError != nil, at: now, date) {
            outcome.filed.contains($0)
        }
        var acknowledged: [String] = []
        for claim in settlement.acknowledged {
            guard let record = live[claim], case let .awaitingFlush(job) = record.state else { continue }
            // Announced before it is settled, so that observers see a job acknowledged before
            // its dependents start.
            var announcement: [Action] = [.announce(.jobAcknowledged(record.info, job.report))]
            log(.info, "job acknowledged", ["job": "\(record.jobID)", "claim": "\(record.claim)"], into: &announcement)
            settle(claim, announcing: announcement, into: &actions)
            acknowledged.append(record.name)
        }
        let summary = FlushSummary(
            reason: reason, rowsFromMain: report.rowsFromMain, rowsWritten: report.rowsWritten,
            acknowledged: acknowledged, duration: report.duration)
        noteFlush(summary)
        acknowledgementRate.count(acknowledged.count, at: date)
        let level: Logger.Level = acknowledged.isEmpty && report.rowsWritten == 0 ? .debug : .info
        log(
            level, "flushed",
            [
                "reason": "\(reason)", "rows": "\(report.rowsWritten)", "acknowledged": "\(acknowledged.count)",
                "ms": "\(Int(report.duration / .milliseconds(1)))",
            ], into: &actions)
        actions.append(.announce(.flushed(summary)))
        if settlement.isStalled, let filingError = outcome.filingError {
            reportStalledAcknowledgements(
                "\(acknowledgements.awaitingFiling.count) flushed job(s) cannot be filed in done/: \(filingError)", at: now,
                into: &actions)
        }
        actions.append(.writeStatus)
        if wasPaused, !isClaimingPaused {
            log(.info, "jobs are acknowledged again; claiming again", into: &actions)
        }
        // Claiming resumes, or dependents that waited in the claim window were settled.
        actions.append(.claim(mayFindNewJobs: false))
        // Jobs that finished while this flush ran: at once if they are many, else if nothing else
        // is left to do.
        flushIfGroupIsFull(into: &actions)
        flushIfIdle(into: &actions)
        return (.success(summary), actions)
    }

    /// The oldest group's flush failed: its jobs wait for the next flush, in front of those that
    /// finished since.
    private mutating func flushFailed(
        _ reason: FlushSummary.Reason, _ error: any Error, after duration: Duration, at now: ContinuousClock.Instant, date: Date
    ) -> [Action] {
        let group = acknowledgements.flushFailed(at: now, date)
        let failures = acknowledgements.consecutiveFlushFailures
        noteFlush(FlushSummary(reason: reason, failedWith: "\(error)", duration: duration))
        var actions: [Action] = [
            .log(
                .init(
                    .error, "flush failed; its jobs stay unacknowledged until a flush succeeds",
                    ["reason": "\(reason)", "jobs": "\(group.count)", "failures_in_a_row": "\(failures)", "error": "\(error)"])),
            .announce(.flushFailed(reason: reason, error: "\(error)")),
        ]
        reportStalledAcknowledgements("flush failed (\(failures) in a row): \(error)", at: now, into: &actions)
        actions.append(.writeStatus)
        return actions
    }

    /// The oldest group's flush met rows that another writer of the store wrote since, which no
    /// merge policy settles, and what the stack held unwritten was discarded (``GroupCommitter``):
    /// every job whose changes it held runs again, reading the other writer's rows. Those are the
    /// group's, the jobs that finished since, and the attempts under way, which may have saved
    /// chunks. The daemon goes on.
    private mutating func flushDiscarded(_ reason: FlushSummary.Reason, _ error: any Error, after duration: Duration) -> [Action] {
        let lost = acknowledgements.flushDiscarded()
        noteFlush(FlushSummary(reason: reason, failedWith: "\(error)", duration: duration))
        var actions: [Action] = [
            .log(
                .init(
                    .error, "flush failed on rows that another writer of the store wrote since; its jobs run again",
                    ["reason": "\(reason)", "jobs": "\(lost.count)", "error": "\(error)"])),
            .announce(.flushFailed(reason: reason, error: "\(error)")),
        ]
        for claim in lost where live[claim]?.hasFinishedRunning == true {
            handleFailure(claim, error, into: &actions)
        }
        for (claim, record) in live where record.runningTask != nil {
            live[claim]?.discardedRows = error
        }
        actions.append(.writeStatus)
        actions.append(.claim(mayFindNewJobs: false))
        return actions
    }

    /// Keeps the flush for the status: the last one, and the last ones that did something.
    private mutating func noteFlush(_ summary: FlushSummary) {
        let flush = summary.withoutNames
        lastFlush = flush
        guard flush.didSomething else { return }
        recentFlushes.insert(flush, at: 0)
        if recentFlushes.count > DaemonStatus.recentFlushLimit { recentFlushes.removeLast() }
    }

    /// Reports that finished jobs cannot be acknowledged (a flush failed, or filing what it
    /// carried did): claiming pauses once ``DaemonConfiguration/flushBacklogLimit`` jobs wait, and
    /// once this has lasted ``DaemonConfiguration/flushFailureTimeout`` the daemon is told to stop.
    private func reportStalledAcknowledgements(_ reason: String, at now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard let since = acknowledgements.stalledSince else { return }
        let (limit, timeout) = (configuration.flushBacklogLimit, configuration.flushFailureTimeout)
        if isClaimingPaused {
            log(.warning, "claiming paused until a flush succeeds",
                ["awaiting_flush": "\(acknowledgements.unacknowledgedCount)", "limit": "\(limit)", "error": "\(reason)"], into: &actions)
        }
        if now - since.instant >= timeout, !isStopping {
            actions.append(
                .giveUpOnAcknowledgements(
                    "no job could be acknowledged for \(DaemonConfiguration.seconds(now - since.instant)) s "
                        + "(flushFailureTimeout \(DaemonConfiguration.seconds(timeout)) s): \(reason)"))
        }
    }

    /// Flushes soon, before the interval is up: a finished job has dependents waiting for its
    /// acknowledgement, the main context holds many rows, or the runner has run out of work.
    mutating func scheduleEarlyFlush(_ reason: FlushSummary.Reason, into actions: inout [Action]) {
        guard !isStopping, !earlyFlushScheduled else { return }
        earlyFlushScheduled = true
        actions.append(.flushSoon(reason))
    }

    /// The main context holds more than ``DaemonConfiguration/flushRowLimit`` rows: flush soon,
    /// unless a flush is under way already (it carries them).
    mutating func mainContextIsFull() -> [Action] {
        var actions: [Action] = []
        if !acknowledgements.isCommitting {
            scheduleEarlyFlush(.rowLimit, into: &actions)
        }
        return actions
    }

    /// Flushes when finished jobs wait for their acknowledgement and nothing else is to be
    /// done: nothing queued or running (claiming just found `new/` empty), no flush under way
    /// (its end looks again). Under load the queue never drains, and jobs are acknowledged in
    /// groups: one flush an interval, or one each ``flushIfGroupIsFull(into:)``.
    mutating func flushIfIdle(into actions: inout [Action]) {
        guard acknowledgements.hasGroupToFlush, queuedTaskCount == 0, configuration.flushesWhenIdle else { return }
        scheduleEarlyFlush(.idle, into: &actions)
    }

    /// Flushes when ``DaemonConfiguration/flushJobLimit`` finished jobs wait for their acknowledgement
    /// and no flush is under way (its end looks again). Under a steady backlog the committer then
    /// files one group while the jobs of the next run, and each group is as large as the jobs
    /// that finished while it filed the last, rather than everything one flush interval holds,
    /// filed in one go (and waited for) at its end. While acknowledgements fail (a full disk),
    /// the interval paces the retries instead: a failed group is back among the jobs waiting,
    /// and each completion would otherwise try again at once.
    mutating func flushIfGroupIsFull(into actions: inout [Action]) {
        guard acknowledgements.isGroupFull(limit: configuration.flushJobLimit) else { return }
        scheduleEarlyFlush(.jobLimit, into: &actions)
    }
}

// MARK: - Stopping

extension RunnerState {
    /// The first step of a stop: no more claims, starts or retries; jobs that are not in a
    /// queue go back to `new/`. Tasks already in the queues go on (the runner suspends the
    /// queues, so those not started wait to be cancelled after the grace period).
    mutating func stopStarting() -> [Action] {
        phase = .stopping
        var actions: [Action] = []
        for record in live.values.sorted(by: { $0.name < $1.name }) {
            switch record.state {
            case .waitingForDependencies, .waitingForRetry, .claimed:
                release(record.claim, into: &actions)
            default:
                break
            }
        }
        return actions
    }

    /// The tasks still in the queues, running or not, for the runner to cancel.
    var queuedTasks: [JobTask] {
        live.values.compactMap(\.task)
    }

    /// How many tasks are running now.
    var runningTaskCount: Int {
        live.values.count { $0.runningTask != nil }
    }

    /// Whether `condition` holds: a stop's step may go on.
    func holds(_ condition: WaitCondition) -> Bool {
        switch condition {
        case .noRunningTasks: !live.values.contains { $0.runningTask != nil }
        case .noQueuedTasks: queuedTaskCount == 0
        }
    }

    /// The last step of a stop, after the final flush: every job it did not acknowledge goes
    /// back to `new/`, but for the jobs whose tasks still run, which stay in `active/` (their
    /// operations may still write); returns those.
    mutating func stopped() -> (abandoned: [JobInfo], actions: [Action]) {
        var actions: [Action] = []
        // Not carried by a successful final flush (it failed, or the job finished after it
        // began): its changes never reach the disk, so it runs again at the next start.
        let (unflushed, unfiled) = acknowledgements.takeUnacknowledged()
        for claim in unflushed {
            release(claim, into: &actions)
        }
        var abandoned: [JobInfo] = []
        for record in live.values.sorted(by: { $0.name < $1.name }) where record.task != nil {
            // The next start (after this process is gone) counts an interruption and runs it again.
            log(.error, "job did not stop after cancellation; left in active/", ["job": "\(record.jobID)"], into: &actions)
            abandoned.append(record.info)
            settle(record.claim, into: &actions)
        }
        for claim in unfiled {
            guard let record = live[claim] else { continue }
            // Its data is on disk; recovery at the next start finishes or re-runs it.
            log(.error, "acknowledged job left in active/", ["job": "\(record.jobID)"], into: &actions)
            settle(claim, into: &actions)
        }
        phase = .stopped
        actions.append(.writeStatus)
        actions.append(.resumeWaiters)
        return (abandoned, actions)
    }

    /// The tasks of jobs failed for good because they did not stop, whose threads still run.
    var runawayJobs: [JobInfo] {
        runawayTasks.values.sorted { $0.name < $1.name }
    }
}
