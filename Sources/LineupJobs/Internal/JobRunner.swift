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
/// The runner decides nothing itself: ``RunnerState`` holds the books (every job held, the
/// group commit, the phase) and answers each input with the actions to take. The runner feeds
/// it the inputs, on one serial queue, and performs the actions: the storage's claims and
/// settles, the tasks in the queues, the timers, the flushes, the events and the log.
///
/// Two serial queues share the work:
/// - the *coordinator* feeds the state and performs its actions. It never waits for a task or
///   for a flush, so tasks, flushes and claims cannot deadlock each other, and a job can be
///   claimed and started while a flush is writing. It does wait for the calls it makes to the
///   job storage (claims, fails, releases, lookups) and for the write of `status.json`: "How a
///   job travels" lists them.
/// - the *committer* (``GroupCommitter``) flushes the store and files each flushed group in
///   `done/`: the disk-bound half of group commit.
final class JobRunner<Storage: JobStorage>: @unchecked Sendable {
    // @unchecked Sendable: its three `var`s (`state`, `gate`, `waiters`) are touched only on
    // `coordinator` (checked by `dispatchPrecondition` in debug builds); the `let`s are
    // Sendable, and `OperationQueue` is thread-safe.

    /// The runner's bookkeeping for one job it holds.
    typealias Record = JobRecord<Storage.Held>
    typealias Action = RunnerAction<Storage.Held>

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
    /// The settings for the threads other than the coordinator (the logger, the main context's
    /// row limit); the coordinator reads the configuration from ``state``, which a reload
    /// updates on the coordinator's next turn.
    let settings: Locked<RunnerSettings>
    /// The clock of the jobs' schedules (notBefore, retries, time limits, dependency waits).
    let clock: DaemonClock
    /// Whether claiming is allowed now (see `JobDaemon.Hooks.mayClaim`).
    let mayClaim: @Sendable () -> Bool
    let startedAt = Date()
    /// Whether a claim asked for by ``claimAvailable()`` has not reached the coordinator yet.
    let claimPending = Atomic<Bool>(false)
    /// Whether a flush asked for by ``mainContextHolds(_:)`` has not reached the coordinator yet.
    let rowLimitFlushPending = Atomic<Bool>(false)
    /// Told once, when flushes have failed for the configured time: the daemon stops.
    let flushFailureTimeoutExpired: @Sendable (String) -> Void
    /// The spans of attempts and flushes; nil, and no cost per job, when no tracer is bootstrapped.
    let tracing = JobTracing.bootstrapped

    /// Every job held, the group commit and the phase: the state machine the runner performs.
    var state: RunnerState<Storage.Held>
    /// What is paused, and this daemon's counts of its limits.
    var gate = ClaimGate()
    /// The steps of a stop that wait for a condition (see ``wait(until:timeout:)``).
    var waiters = StopWaiters()

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
        self.committer = GroupCommitter(container: container, jobs: jobs)
        self.state = RunnerState(
            configuration: settings.configuration, logLevel: settings.logger.logLevel,
            storage: RunnerState.StorageAnswers(
                settledOutcome: { [jobs] in jobs.settledOutcome(ofJobID: $0) },
                lastDone: { [jobs] in jobs.lastDone(withUniqueKey: $0) },
                pendingJobIDs: { [jobs] in try? jobs.pendingJobIDs(among: $0) }),
            jitter: jitter)
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

    // MARK: - Performing the state's actions

    /// Performs `actions` in order; what comes of one (a task made, a job renamed) goes back to
    /// the state at once, and the actions it answers are performed before the next.
    func perform(_ actions: [Action]) {
        assertOnCoordinator()
        for action in actions {
            perform(action)
        }
    }

    private func perform(_ action: Action) {
        switch action {
        case let .postpone(claimed, info, notBefore):
            // A job that cannot go back stays in active/ until the next start returns it to new/;
            // running it early would break the one promise notBefore makes.
            guard settle(claimed, .postponed(until: notBefore), jobID: info.id ?? info.name) else { return }
            events.emit(.jobScheduled(info, notBefore: notBefore))
            logger.info("job scheduled", metadata: ["job": "\(info.id ?? info.name)", "notBefore": "\(notBefore.ISO8601Format())"])
        case let .countClaim(kind, namedQueue):
            if gate.hasLimits { noteClaim(kind: kind, namedQueue: namedQueue) }
        case let .prepareTask(claim):
            guard let record = state.live[claim] else { return }
            perform(state.taskPrepared(claim: claim, Result { try registry.makeTask(for: makeRequest(record)) }))
        case let .startAttempt(claim, prepared):
            startAttempt(claim, prepared: prepared)
        case let .recordFailedAttempt(claim):
            guard let record = state.live[claim] else { return }
            do {
                state.failedAttemptRecorded(claim: claim, try jobs.recordFailedAttempt(of: record.claimed))
            } catch {
                logger.error(
                    "cannot count a failed attempt in the job's file name", metadata: ["job": "\(record.jobID)", "error": "\(error)"])
            }
        case let .settle(claimed, settlement, jobID):
            settle(claimed, settlement, jobID: jobID)
        case let .stopTask(claim, task, reason):
            perform(state.stopRequested(claim: claim, task: task, for: reason, stopped: task.stop(reason)))
        case let .schedule(delay, timer):
            clock.schedule(delay, coordinator) { self.perform(self.state.timerFired(timer)) }
        case let .flushSoon(reason):
            coordinator.async {
                guard self.state.isEarlyFlushDue else { return }
                self.beginFlush(reason)
            }
        case let .announce(event):
            events.emit(event)
        case let .log(line):
            logger.log(level: line.level, line.message, metadata: line.metadata)
        case let .traceAttemptThatCouldNotStart(record, error):
            guard let tracing else { return }
            tracing.recordAttemptThatCouldNotStart(
                jobID: record.jobID, name: record.name, file: record.file, attempt: record.attempt, error: error)
        case let .claim(mayFindNewJobs):
            claimWhileRoom(mayFindNewJobs: mayFindNewJobs)
        case .resumeWaiters:
            resumeWaiters()
        case .writeStatus:
            writeStatus()
        case let .giveUpOnAcknowledgements(reason):
            flushFailureTimeoutExpired(reason)
        }
    }

    /// The storage's half of a settle: the job leaves `running`; returns whether it did. A
    /// failure is logged: the file stays in `active/`, and recovery at the next start deals with it.
    @discardableResult
    private func settle(_ claimed: Storage.Held, _ settlement: JobTransition, jobID: String) -> Bool {
        do {
            try jobs.settle(claimed, settlement)
            return true
        } catch {
            let message: Logger.Message =
                switch settlement {
                case .failed: "cannot settle a failed job"
                case .released: "cannot give a job back"
                case .postponed: "cannot return a scheduled job to new/"
                }
            logger.error(message, metadata: ["job": "\(jobID)", "queue": "\(jobs.location)", "error": "\(error)"])
            return false
        }
    }

    // MARK: - Settings

    /// Applies reloaded settings: the default queue's width at once, the rest from the next use
    /// (named queues change only with a restart).
    func apply(_ newSettings: RunnerSettings) {
        settings.withLock { $0 = newSettings }
        queue.maxConcurrentOperationCount = newSettings.configuration.maxConcurrentJobs
        coordinator.async {
            self.perform(self.state.settingsChanged(newSettings.configuration, logLevel: newSettings.logger.logLevel))
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
    /// repeated.
    func claimWhileRoom(mayFindNewJobs: Bool = false) {
        assertOnCoordinator()
        let roundTrip = jobs.claimRoundTrip
        guard let window = state.claimRoundBegins(mayFindNewJobs: mayFindNewJobs, roundTrip: roundTrip, now: .now) else {
            return
        }
        let filter = claimFilter(state.configuration)
        while let room = state.roomToClaim(within: window), mayClaim() {
            let claimed: Storage.Held?
            do {
                claimed = try filter.map { try jobs.claimNext(filter: $0, upTo: room) } ?? jobs.claimNext(upTo: room)
            } catch {
                logger.error("cannot claim a job", metadata: ["queue": "\(jobs.location)", "error": "\(error)"])
                return
            }
            guard let claimed else {
                // Narrowed by a pause or a limit, finishing a job may free what it held back.
                state.claimFoundNothing(narrowed: filter != nil)
                return
            }
            perform(state.claimed(claimed, now: clock.now(), at: .now))
        }
    }

    func makeRequest(_ record: Record) -> JobRequest {
        JobRequest(
            jobID: record.jobID, name: record.name, file: record.file!, jobFilePath: record.claimed.enqueuedFileName,
            attempt: record.attempt, interruptions: record.claimed.interruptions, paths: paths,
            container: container, logger: logger, settledReport: { [jobs] id in jobs.settledReport(ofJobID: id) })
    }

    // MARK: - Attempts

    /// Puts the job's next task on its queue: `prepared`, or one made now for its attempt.
    private func startAttempt(_ claim: String, prepared: JobTask?) {
        guard let record = state.live[claim] else { return }
        let task: JobTask
        if let prepared {
            task = prepared
        } else {
            do {
                task = try registry.makeTask(for: makeRequest(record))
            } catch {
                perform(state.attemptCouldNotStart(claim: claim, error))
                return
            }
        }
        let info = record.info
        // Announced from the task's thread: the coordinator learns that a task runs from the
        // task itself (`startedAt`) when it needs to, so a start costs it no hop.
        let timeLimit = record.file.flatMap { state.configuration.timeLimit(for: $0) }
        task.onStart { [weak self] task in
            guard let self else { return }
            self.events.emit(.jobStarted(info))
            task.logger.info("job started")
            if let timeLimit {
                self.clock.schedule(timeLimit, self.coordinator) { [weak task] in
                    guard let task else { return }
                    self.perform(self.state.timerFired(.timeLimitReached(claim: claim, task, limit: timeLimit)))
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
            self.coordinator.async {
                let ending = AttemptEnding(result: task.finalResult, startedAt: task.startedAt, keptRowChanges: task.keptRowChanges)
                self.perform(self.state.attemptEnded(claim: claim, task: task, ending, finished: finished))
            }
        }
        if let tracing {
            task.traceAttempt(tracing.attempt(jobID: record.jobID, name: record.name, file: record.file, attempt: record.attempt))
        }
        state.attemptQueued(claim: claim, task: task)
        // Jobs were claimed by priority; tasks that wait in a queue behind its concurrency are
        // started by it too (the queue knows five levels: ten are folded into them).
        task.queuePriority = Self.queuePriority(of: record.file?.priority ?? JobFile.defaultPriority)
        task.runOnAttemptThreads(attemptThreads)
        operationQueue(for: record.file).addOperation(task)
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
}
