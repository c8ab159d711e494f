import Dispatch
import Foundation
import LineupSpool
import LineupStore
import Logging
import LineupLocking
import Synchronization

/// Runs claimed jobs on its `OperationQueue`s and acknowledges them after the flush that
/// carries their changes (group commit).
///
/// Two serial queues share the work:
/// - the *coordinator* keeps the books: claims, dependency resolution, task completions (hopped
///   from the queue's threads), retries, failures and releases, and the settling of flushed
///   groups. It never waits for a task or for a flush, so tasks, flushes and claims cannot
///   deadlock each other, and a job can be claimed and started while a flush is writing. It
///   does wait for the calls it makes to the job storage (claims, fails, releases, lookups) and
///   for the write of `status.json`: "How a job travels" lists them.
/// - the *committer* (``GroupCommitter``) flushes the store and files each flushed group in
///   `done/`: the disk-bound half of group commit. The coordinator hands it a settled list of
///   finished jobs (every one saved into the main context before the flush begins, so the
///   flush carries its changes) and acknowledges them when the committer reports back.
///
/// A job's life: claimed → (parked until every job in its `after` list is done:
/// ``DependencyBook``) → queued → running → finished, awaiting the flush → committing →
/// acknowledged (`done/`). A failure is retried with backoff (waiting for retry) or
/// goes to `failed/`; at shutdown a job not finished goes back to `new/` (released).
final class JobRunner<Storage: JobStorage>: @unchecked Sendable {
    // @unchecked Sendable: every `var` below is touched only on `coordinator` (checked by
    // `dispatchPrecondition` in debug builds); the `let`s are Sendable, and `OperationQueue` is
    // thread-safe.

    /// The runner's bookkeeping for one job it holds.
    typealias Record = JobRecord<Storage.Held>

    let coordinator = DispatchQueue(label: "lineup.runner")
    /// The default queue, for the kinds of no named queue.
    let queue = OperationQueue()
    /// The named queues (``DaemonConfiguration/queues``) by name.
    let queuesByName: [String: OperationQueue]
    /// Which queue a job runs in, by the queues configured when the runner was made (they need
    /// a restart to change, as the `OperationQueue`s do).
    let routing: QueueRouting
    /// Every queue, the default one first.
    let allQueues: [OperationQueue]
    let committer: GroupCommitter<Storage>
    /// The threads that run the attempts (see ``AttemptThreads``).
    let attemptThreads = AttemptThreads(named: "lineup.attempt")
    /// Where the jobs wait and are settled.
    let jobs: Storage
    /// The spool directory that `status.json` is written into (on every back end: it is the host's).
    let statusDirectory: URL
    let container: PersistentContainer
    let registry: JobRegistry
    let paths: PathPolicy
    let events: EventBroadcaster
    let settings: Locked<RunnerSettings>
    let jitter: @Sendable () -> Double
    /// The clock of the jobs' schedules (notBefore, retries, time limits, dependency waits).
    let clock: DaemonClock
    /// Whether claiming is allowed now (see `JobDaemon.Hooks.mayClaim`).
    let mayClaim: @Sendable () -> Bool
    let startedAt = Date()
    /// Whether a claim asked for by ``claimAvailable()`` has not reached the coordinator yet.
    let claimPending = Atomic<Bool>(false)
    /// Whether a flush asked for by ``mainContextHolds(_:)`` has not reached the coordinator yet.
    let rowLimitFlushPending = Atomic<Bool>(false)

    /// Unsettled jobs by claim (names may repeat; claims do not).
    var live: [String: Record] = [:]
    /// Which unsettled jobs have which ids, and which parked jobs wait for them.
    var dependencies = DependencyBook()
    /// Finished jobs on their way to their acknowledgement (group commit).
    var acknowledgements = AcknowledgementPipeline<Record>()
    /// Tasks in the queue (not completed).
    var queuedTaskCount = 0
    var isStopping = false
    var phase = DaemonStatus.Phase.running
    /// A flush before the interval is scheduled (see ``scheduleEarlyFlush(_:)``).
    var earlyFlushScheduled = false
    var lastFlush: FlushSummary?
    /// The last flushes that did something, newest first (see ``DaemonStatus/recentFlushes``).
    var recentFlushes: [FlushSummary] = []
    var acknowledgementRate = AcknowledgementRate()
    /// The main context's unsaved rows, as ``refreshStatus()`` last read them.
    var mainContextUnsavedRows: Int?
    /// Told once, when flushes have failed for the configured time: the daemon stops.
    let flushFailureTimeoutExpired: @Sendable (String) -> Void
    /// Tasks of jobs failed for good because they did not stop when their time limit cancelled
    /// them: their threads still run (a thread cannot be killed), and shutdown must know.
    var runawayTasks: [ObjectIdentifier: JobInfo] = [:]
    var waiters: [Int: (condition: WaitCondition, continuation: CheckedContinuation<Bool, Never>)] = [:]
    /// What is paused, and this daemon's counts of its limits.
    var gate = ClaimGate()
    /// How many claimed jobs the runner holds at most, following the jobs where not configured.
    var claimWindow: ClaimWindow
    /// Whether the last claim, unnarrowed by pauses or limits, found nothing. Then a job that
    /// finishes does not claim again, since each would find nothing too (on a database, an empty
    /// statement a job as a burst drains), until something may have queued one: a notification,
    /// a poll or the watcher's hint (``claimAvailable()``), a resume, new settings.
    var lastClaimFoundNothing = false
    var nextWaiterToken = 0
    /// The spans of attempts and flushes; nil, and no cost per job, when no tracer is bootstrapped.
    let tracing = JobTracing.bootstrapped

    init(
        jobs: Storage, statusDirectory: URL, container: PersistentContainer, registry: JobRegistry, paths: PathPolicy,
        settings: RunnerSettings, events: EventBroadcaster, jitter: @escaping @Sendable () -> Double,
        clock: DaemonClock = .system, mayClaim: @escaping @Sendable () -> Bool = { true },
        flushFailureTimeoutExpired: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.clock = clock
        self.mayClaim = mayClaim
        self.flushFailureTimeoutExpired = flushFailureTimeoutExpired
        self.jobs = jobs
        self.statusDirectory = statusDirectory
        self.container = container
        self.registry = registry
        self.paths = paths
        self.settings = Locked(settings)
        self.events = events
        self.jitter = jitter
        self.committer = GroupCommitter(container: container, jobs: jobs)
        self.claimWindow = ClaimWindow(settings.configuration)
        queue.name = "lineup.jobs"
        queue.qualityOfService = BlockingWork.qualityOfService
        queue.maxConcurrentOperationCount = settings.configuration.maxConcurrentJobs
        var queuesByName: [String: OperationQueue] = [:]
        var allQueues = [queue]
        for (name, definition) in settings.configuration.queues.sorted(by: { $0.key < $1.key }) {
            let named = OperationQueue()
            named.name = "lineup.jobs.\(name)"
            named.qualityOfService = BlockingWork.qualityOfService
            named.maxConcurrentOperationCount = definition.concurrency
            allQueues.append(named)
            queuesByName[name] = named
        }
        self.queuesByName = queuesByName
        self.routing = settings.configuration.routing
        self.allQueues = allQueues
    }

    deinit {
        attemptThreads.stop()
    }

    /// The queue that runs `file`'s job, by ``routing``: the one its `queue` names, else its
    /// kind's. A name this daemon has not configured runs in the kind's queue (see
    /// ``admit(_:invalid:)``).
    func operationQueue(for file: JobFile?) -> OperationQueue {
        routing.queue(forJobNamed: file?.queue, kind: file?.kind).flatMap { queuesByName[$0] } ?? queue
    }

    var logger: Logger {
        settings.withLock { $0.logger }
    }

    // MARK: - Hopping onto the coordinator

    /// Runs `body` on the coordinator and returns its result, without blocking the caller's
    /// thread.
    func onCoordinator<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            coordinator.async { continuation.resume(returning: body()) }
        }
    }

    func onCoordinator<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            coordinator.async { continuation.resume(with: Result { try body() }) }
        }
    }

    @inline(__always)
    func assertOnCoordinator() {
        dispatchPrecondition(condition: .onQueue(coordinator))
    }

    // MARK: - Settings

    /// Applies reloaded settings: the default queue's width at once, the rest from the next use
    /// (named queues change only with a restart).
    func apply(_ newSettings: RunnerSettings) {
        settings.withLock { $0 = newSettings }
        queue.maxConcurrentOperationCount = newSettings.configuration.maxConcurrentJobs
        coordinator.async {
            self.claimWindow = ClaimWindow(newSettings.configuration)
            self.claimWhileRoom(mayFindNewJobs: true)
        }
    }

    // MARK: - Claiming

    /// Claims queued jobs while the claim window has room: `new/` may hold jobs (the spool
    /// watcher's hint, called on its thread). Hints that come while a claim is pending are one
    /// claim: it looks at `new/` after them.
    func claimAvailable() {
        guard claimPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        coordinator.async {
            self.claimPending.store(false, ordering: .releasing)
            self.claimWhileRoom(mayFindNewJobs: true)
        }
    }

    /// Claims what the window has room for, and returns once that claim has run. A caller that
    /// reads the status next needs this, not ``claimAvailable()``: a hint that loses to one
    /// pending from another thread returns before that one has even reached the coordinator.
    func claimAvailableNow() async {
        await onCoordinator { self.claimWhileRoom(mayFindNewJobs: true) }
    }

    /// Claims while the window has room. `mayFindNewJobs` is false where room was freed (a job
    /// finished, a flush went through): then a claim that found nothing last time is not
    /// repeated (``lastClaimFoundNothing``).
    func claimWhileRoom(mayFindNewJobs: Bool = false) {
        assertOnCoordinator()
        if mayFindNewJobs {
            lastClaimFoundNothing = false
        } else if lastClaimFoundNothing {
            return
        }
        let configuration = settings.withLock { $0.configuration }
        let roundTrip = jobs.claimRoundTrip
        let window = claimWindow.size(roundTrip: roundTrip, at: ContinuousClock.now)
        let filter = claimFilter(configuration)
        var inHand: Int { queuedTaskCount + dependencies.parkedOnJobsInHandCount }
        // A storage whose claim is a round trip is asked once half the window is free, so that a
        // statement claims half a window at least (see JobStorage.claimRoundTrip).
        if roundTrip != nil, inHand > window / 2 { return }
        while !isStopping, inHand < window, !isClaimingPaused, mayClaim() {
            let claimed: Storage.Held?
            let room = window - inHand
            do {
                claimed = try filter.map { try jobs.claimNext(filter: $0, upTo: room) } ?? jobs.claimNext(upTo: room)
            } catch {
                logger.error("cannot claim a job", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
                return
            }
            guard let claimed else {
                // Narrowed by a pause or a limit, finishing a job may free what it held back.
                lastClaimFoundNothing = filter == nil
                return
            }
            claimWindow.noteClaimed(at: ContinuousClock.now)
            submit(claimed)
        }
    }

    /// Whether claiming waits for acknowledgements to go through again: they are failing (a
    /// full disk) and the finished jobs waiting for one have reached the bound. Claiming more
    /// would only grow the main context with work that cannot be made durable.
    var isClaimingPaused: Bool {
        acknowledgements.pausesClaiming(limit: settings.withLock { $0.configuration.flushBacklogLimit })
    }

    /// Finished jobs not acknowledged yet: waiting for a flush, being committed, or flushed and
    /// waiting to be filed.
    var jobsAwaitingFlush: Int {
        acknowledgements.unacknowledgedCount
    }

    /// Takes a claimed job in: parses it, makes its first task (which validates its
    /// parameters), then resolves its dependencies.
    func submit(_ claimed: Storage.Held) {
        assertOnCoordinator()
        let file: JobFile?
        var invalid: JobError?
        do {
            file = try claimed.decodeJobFile()
        } catch {
            file = nil
            let code: JobError.Code = error.code == .malformedJobFile ? .malformedJobFile : .invalidParameters
            invalid = JobError(code, error.message, jobFile: claimed.enqueuedFileName, isRetryable: false, underlying: error)
        }
        if let notBefore = file?.notBefore, notBefore > clock.now() {
            postpone(claimed, file: file, until: notBefore)
            return
        }
        let policy = settings.withLock { $0.configuration.retry }.overridden(
            maxAttempts: file?.maxAttempts, baseDelay: file?.baseDelay)
        let record = Record(claimed: claimed, file: file, policy: policy)
        if gate.hasLimits {
            noteClaim(of: file)
        }
        // Failed attempts of earlier runs count: the number lives in the file name.
        record.attempt = claimed.failedAttempts + 1
        live[record.claim] = record
        events.emit(.jobClaimed(record.info))
        logger.debug("job claimed", metadata: ["job": "\(record.jobID)", "file": "\(claimed.enqueuedFileName)", "claim": "\(claimed.claim)"])
        admit(record, invalid: invalid)
    }

    /// Returns a job whose `notBefore` time is still to come to `new/`, named so that claimers
    /// skip it until then (a job enqueued with `SpoolDirectory.enqueue(_:)` has that name
    /// already and is not claimed early; one written into `new/` by hand is, once).
    private func postpone(_ claimed: Storage.Held, file: JobFile?, until notBefore: Date) {
        let info = JobInfo(name: claimed.name, claim: claimed.claim, id: file?.id, kind: file?.kind, attempt: claimed.failedAttempts + 1)
        do {
            try jobs.postpone(claimed, until: notBefore)
        } catch {
            // It stays in active/ until the next start returns it to new/; running it early
            // would break the one promise notBefore makes.
            logger.error("cannot return a scheduled job to new/", metadata: ["job": "\(info.id ?? info.name)", "error": "\(error)"])
            return
        }
        events.emit(.jobScheduled(info, notBefore: notBefore))
        logger.info("job scheduled", metadata: ["job": "\(info.id ?? info.name)", "notBefore": "\(notBefore.ISO8601Format())"])
    }

    /// Fails the job at once when its file or parameters are invalid; otherwise resolves its
    /// dependencies.
    private func admit(_ record: Record, invalid: JobError?) {
        if let invalid {
            failPermanently(record, invalid)
            return
        }
        guard let file = record.file else { return }
        if record.claimed.failedAttempts >= record.policy.maxAttempts {
            // Its attempts were used up before a restart, or maxAttempts was lowered since.
            failPermanently(
                record,
                JobError(
                    .jobFailed,
                    "\(record.claimed.failedAttempts) attempts failed already, and maxAttempts is \(record.policy.maxAttempts)",
                    jobFile: record.claimed.enqueuedFileName, isRetryable: false))
            return
        }
        // Held by a job queued or running: one that has finished and waits for its flush holds
        // it no more (its file may be in done/ already, the flush's outcome on its way here).
        if let key = file.uniqueKey,
            let holder = live.values.first(where: { $0 !== record && $0.file?.uniqueKey == key && !$0.hasFinishedRunning })
        {
            failPermanently(
                record,
                JobError(
                    .duplicateJob,
                    "refused: job \(holder.jobID) (\(holder.claimed.enqueuedFileName)) holds uniqueKey `\(key)` and is queued or running",
                    jobFile: record.claimed.enqueuedFileName, isRetryable: false))
            return
        }
        // With uniqueFor, a job that finished and waits for its flush is done as far as the key
        // is concerned; one filed in done/ holds it for the period after it finished.
        if let key = file.uniqueKey, let period = file.uniqueFor,
            let doneAt = live.values.contains(where: { $0.hasFinishedRunning && $0.file?.uniqueKey == key })
                ? clock.now() : jobs.lastDone(withUniqueKey: key),
            doneAt > clock.now().addingTimeInterval(-period.timeInterval)
        {
            failPermanently(
                record,
                JobError(
                    .duplicateJob,
                    "refused: a job holding uniqueKey `\(key)` was done at \(doneAt.ISO8601Format()), within uniqueFor (\(Self.secondsText(period)) s)",
                    jobFile: record.claimed.enqueuedFileName, isRetryable: false))
            return
        }
        if routing.ignores(namedQueue: file.queue), let name = file.queue {
            // Refusing it would lose work whenever producers name a queue before the daemons
            // are configured with it; the kind's queue bounds it as any job of the kind.
            logger.warning(
                "job names a queue this daemon has not configured; it runs in its kind's queue",
                metadata: ["job": "\(record.jobID)", "queue": "\(name)"])
        }
        do {
            record.preparedTask = try registry.makeTask(for: makeRequest(record))
        } catch {
            traceAttemptThatCouldNotStart(record, error)
            failPermanently(record, error)
            return
        }
        dependencies.hold(claim: record.claim, id: file.id, after: file.after)
        resolveDependencies(record)
    }

    func makeRequest(_ record: Record) -> JobRequest {
        JobRequest(
            jobID: record.jobID, name: record.name, file: record.file!, jobFilePath: record.claimed.enqueuedFileName,
            attempt: record.attempt, interruptions: record.claimed.interruptions, paths: paths,
            container: container, logger: logger, settledReport: { [jobs] id in jobs.settledReport(ofJobID: id) })
    }

    // MARK: - Dependencies

    /// Queues the job if every job in its `after` list is done; fails it if one failed or if it
    /// waits for itself (a cycle); otherwise parks it until those jobs settle. Called at admission
    /// and again each time a job it waits for settles.
    func resolveDependencies(_ record: Record) {
        assertOnCoordinator()
        guard let file = record.file, !record.isSettled else { return }
        switch verdict(on: file, of: record.claim) {
        case .ready:
            dependencies.unpark(record.claim)
            startAttempt(record)
        case let .cycle(through: id):
            failPermanently(
                record,
                JobError(
                    .dependencyCycle,
                    "job \(record.jobID) waits for job \(id), which waits (directly or not) for job \(record.jobID)",
                    jobFile: record.claimed.enqueuedFileName))
        case let .dependencyFailed(id, reason):
            failPermanently(
                record,
                JobError(.dependencyFailed, "job \(id) in `after` failed: \(reason)", jobFile: record.claimed.enqueuedFileName))
        case let .waiting(inHand, unknown):
            park(record, inHand: inHand, unknown: unknown)
        }
    }

    /// What the job's `after` list comes to now; the job storage tells how jobs not in hand were
    /// settled.
    private func verdict(on file: JobFile, of claim: String) -> DependencyBook.Verdict {
        dependencies.verdict(for: claim, after: file.after, runsAfterFailures: file.afterSettled) { jobs.settledOutcome(ofJobID: $0) }
    }

    /// Parks the job until the jobs it waits for settle. A dependency that has finished and only
    /// waits for its flush is flushed soon; an id no job has is waited for up to
    /// ``DaemonConfiguration/dependencyWaitTimeout``.
    private func park(_ record: Record, inHand: Set<String>, unknown: Set<String>) {
        guard !isStopping else {
            release(record)
            return
        }
        let awaited = inHand.union(unknown)
        let wasParked = !dependencies.awaitedIDs(of: record.claim).isEmpty
        dependencies.park(record.claim, on: awaited, inHand: !inHand.isEmpty)
        record.move(to: .waitingForDependencies(unresolved: awaited))
        if !wasParked {
            events.emit(.jobWaitingForDependencies(record.info, ids: awaited.sorted()))
            logger.info(
                "job waits for the jobs in its after list",
                metadata: ["job": "\(record.jobID)", "after": "\(awaited.sorted().joined(separator: ","))"])
        }
        for id in inHand {
            if let claim = dependencies.holder(ofID: id), live[claim]?.hasFinishedRunning == true {
                scheduleEarlyFlush(.dependency)
            }
        }
        if !unknown.isEmpty, !record.awaitsUnknownDependencies {
            record.awaitsUnknownDependencies = true
            let timeout = settings.withLock { $0.configuration.dependencyWaitTimeout }
            let claim = record.claim
            clock.schedule(timeout, coordinator) {
                self.dependencyWaitExpired(claim: claim, timeout: timeout)
            }
        }
    }

    /// The wait for ids that no job had is up: fails the job if some still have none, unless
    /// those are scheduled for later or held by another daemon. If what it waits for has changed
    /// meanwhile without a settlement in this run to wake it (a job settled by an earlier run
    /// turned up in `done/`, say), it is judged again now.
    private func dependencyWaitExpired(claim: String, timeout: Duration) {
        guard !isStopping, let record = live[claim], case .waitingForDependencies = record.state, let file = record.file
        else { return }
        record.awaitsUnknownDependencies = false
        guard case let .waiting(_, unknown) = verdict(on: file, of: claim), !unknown.isEmpty else {
            resolveDependencies(record)
            return
        }
        // A job scheduled for later is waited for however long that is.
        if let pending = try? jobs.pendingJobIDs(among: unknown), !pending.isEmpty {
            record.awaitsUnknownDependencies = true
            clock.schedule(timeout, coordinator) {
                self.dependencyWaitExpired(claim: claim, timeout: timeout)
            }
            return
        }
        let ids = unknown.sorted().joined(separator: ", ")
        failPermanently(
            record,
            JobError(
                .unknownDependency,
                "no job with id \(ids) (named in `after`) was queued, running, done or failed within \(DaemonConfiguration.seconds(timeout)) s",
                jobFile: record.claimed.enqueuedFileName))
    }

    // MARK: - Attempts

    /// Puts the job's next task on the queue.
    func startAttempt(_ record: Record) {
        assertOnCoordinator()
        guard !isStopping else {
            release(record)
            return
        }
        let task: JobTask
        if let prepared = record.preparedTask {
            record.preparedTask = nil
            task = prepared
        } else {
            record.attempt += 1
            do {
                task = try registry.makeTask(for: makeRequest(record))
            } catch {
                traceAttemptThatCouldNotStart(record, error)
                handleFailure(record, error)
                return
            }
        }
        let claim = record.claim
        let info = record.info
        // Announced from the task's thread: the coordinator learns that a task runs from the
        // task itself (`startedAt`) when it needs to, so a start costs it no hop.
        let timeLimit = record.file.flatMap { file in settings.withLock { $0.configuration.timeLimit(for: file) } }
        task.onStart { [weak self] task in
            guard let self else { return }
            self.events.emit(.jobStarted(info))
            task.logger.info("job started")
            if let timeLimit {
                self.clock.schedule(timeLimit, self.coordinator) { [weak task] in
                    guard let task else { return }
                    self.attemptTimedOut(claim: claim, task: task, after: timeLimit)
                }
            }
        }
        // Report from the task's own thread, not from `completionBlock`: corelibs runs that on a
        // global queue whose few threads the jobs themselves may all be holding. The thread
        // writes a success's report into tmp/ on the way, while the coordinator goes on. (A task
        // cancelled before it started ends here too, with no report.)
        let (claimed, id, kind, attempt) = (record.claimed, record.file?.id, record.file?.kind ?? "?", record.attempt)
        let uniqueKey = record.file?.uniqueKey
        task.onFinish { [weak self] task in
            guard let self else { return }
            let finished = self.stageReport(of: task, claimed: claimed, id: id, kind: kind, attempt: attempt, uniqueKey: uniqueKey)
            self.coordinator.async { self.taskCompleted(claim: claim, task: task, finished: finished) }
        }
        if let tracing {
            task.traceAttempt(tracing.attempt(jobID: record.jobID, name: record.name, file: record.file, attempt: record.attempt))
        }
        record.move(to: .queued(task))
        queuedTaskCount += 1
        // Jobs were claimed by priority; tasks that wait in a queue behind its concurrency are
        // started by it too (the queue knows five levels: ten are folded into them).
        task.queuePriority = Self.queuePriority(of: record.file?.priority ?? JobFile.defaultPriority)
        task.runOnAttemptThreads(attemptThreads)
        operationQueue(for: record.file).addOperation(task)
    }

    /// The span of an attempt whose task could not be made, when a tracer is bootstrapped.
    private func traceAttemptThatCouldNotStart(_ record: Record, _ error: any Error) {
        tracing?.recordAttemptThatCouldNotStart(
            jobID: record.jobID, name: record.name, file: record.file, attempt: record.attempt, error: error)
    }

    /// An `Operation`'s five levels for a job's ten (0 most urgent).
    static func queuePriority(of priority: Int) -> Operation.QueuePriority {
        switch priority {
        case ..<2: .veryHigh
        case ..<JobFile.defaultPriority: .high
        case JobFile.defaultPriority: .normal
        case ...7: .low
        default: .veryLow
        }
    }

    /// `3600` or `7.5`: a period as a job file says it, in seconds, without a needless fraction.
    static func secondsText(_ period: Duration) -> String {
        let seconds = period.timeInterval
        return seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
    }
}
