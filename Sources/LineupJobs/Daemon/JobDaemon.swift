import Dispatch
import Foundation
public import LineupSpool
public import LineupStore
public import Logging
public import ServiceLifecycle
import UnixSignals
import LineupLocking

/// The job daemon: it opens the store, recovers the spool, claims jobs, runs them on the
/// queue, flushes on an interval and acknowledges what each flush carried, and stops
/// gracefully. `lineupd` is a thin command-line wrapper around it; tests run it in-process.
///
/// ```swift
/// var registry = JobRegistry()
/// registry.register("statistics", parameters: StatisticsParameters.self) { request, parameters in ... }
/// let daemon = JobDaemon(configuration: configuration, registry: registry, model: model, logger: logger)
/// try await daemon.runWithSignalHandling()   // until SIGTERM or SIGINT
/// ```
///
/// | event | what happens |
/// |---|---|
/// | start (``run()``) | open the store (``Hooks/prepareStore`` may seed it), recover `active/`, start claiming (inotify and periodic rescans), the flush loop and the status file; log one line with the configuration |
/// | every ``DaemonConfiguration/flushInterval`` | flush: main → writer → disk, then acknowledge the jobs that flush carried |
/// | SIGUSR1, ``flush()`` | flush now |
/// | SIGHUP, ``reload()`` | re-read the configuration file; apply log level, flush interval, concurrency, retries, grace |
/// | SIGTERM, SIGINT, ``requestShutdown()``, graceful shutdown of a `ServiceGroup` | stop claiming; running jobs get the grace period, then the rest are cancelled and returned to `new/`; final flush; WAL checkpoint; ``run()`` returns |
///
/// ## Dependencies (`after`)
///
/// A job starts only once every job in its `after` list is *acknowledged*: its changes were
/// written to disk by a flush and its file moved to `done/`. Finishing is not enough, because
/// a dependent may read what its dependency wrote with SQL aggregates (statistics after an
/// import), which see saved data only. When a finished job has dependents waiting, the
/// daemon flushes at once instead of waiting for the interval. A dependency that failed
/// fails its dependents (``JobError/Code/dependencyFailed``); an id that is neither queued,
/// running, done nor failed is waited for up to
/// ``DaemonConfiguration/dependencyWaitTimeout`` (it may be enqueued a moment later), then
/// the dependent fails (``JobError/Code/unknownDependency``); a cycle fails at once.
///
/// ## Flush failures
///
/// A job is acknowledged only by a flush that committed. When a flush fails (disk full, I/O
/// error), its jobs stay unacknowledged in `active/`, the error is logged and reported in
/// `status.json`, and the next flush (interval, signal or request) tries again: the changes
/// wait in the main or writer context. If the final flush at shutdown fails, its jobs return to
/// `new/` and ``run()`` throws ``DaemonError/Code/finalFlushFailed``.
public final class JobDaemon: Service, Sendable {
    /// Customization points.
    public struct Hooks: Sendable {
        /// Runs once after the store is opened, before jobs are claimed (e.g. to seed a new
        /// store). An error stops the start with ``DaemonError/Code/storePreparationFailed``.
        public var prepareStore: (@Sendable (PersistentContainer, Logger) throws -> Void)?
        /// Makes the configuration to reload from on SIGHUP (``reload()``); nil re-reads
        /// ``DaemonConfiguration/configurationFile`` when there is one. `lineupd` can reopen its
        /// log files here too, and re-apply its command-line options over the file.
        public var reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)?
        /// A uniform random number in `0..<1` for the retry jitter; tests fix it.
        public var randomJitter: @Sendable () -> Double
        /// A supervisor's watchdog to feed (systemd's `WatchdogSec=`, see ``SystemdNotifier``).
        public var watchdog: Watchdog?
        /// The clock of the jobs' schedules; LineupTesting's `TestClock` replaces the system's.
        package var clock = DaemonClock.system
        /// Whether the runner may claim jobs now. Always, in a daemon; LineupTesting's daemon
        /// claims only while its test drains, so that what a test enqueues stays to be looked at.
        package var mayClaim: @Sendable () -> Bool = { true }

        /// Makes the hooks; by default none, with a uniformly random jitter and no watchdog.
        public init(
            prepareStore: (@Sendable (PersistentContainer, Logger) throws -> Void)? = nil,
            reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)? = nil,
            randomJitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
            watchdog: Watchdog? = nil
        ) {
            self.prepareStore = prepareStore
            self.reloadConfiguration = reloadConfiguration
            self.randomJitter = randomJitter
            self.watchdog = watchdog
        }
    }

    /// A keep-alive that a supervisor expects within `timeout`, or it restarts the daemon.
    ///
    /// The flush loop feeds it, at half the timeout as systemd advises, between its flushes: a
    /// flush that never returns (a wedged disk) stops the feeding, so that the supervisor
    /// restarts a daemon that could acknowledge nothing.
    public struct Watchdog: Sendable {
        /// How long the supervisor waits for a feed before it restarts the daemon (systemd's
        /// `WatchdogSec=`); fed every half of it.
        public var timeout: Duration
        /// Tells the supervisor the daemon is alive (systemd's `WATCHDOG=1`); called from the flush
        /// loop.
        public var feed: @Sendable () -> Void

        /// Makes a watchdog that expects `feed` within `timeout`.
        public init(timeout: Duration, feed: @escaping @Sendable () -> Void) {
            self.timeout = timeout
            self.feed = feed
        }
    }

    enum Phase {
        case idle, running, stopped
    }

    struct State {
        var configuration: DaemonConfiguration
        var logger: Logger
        var phase = Phase.idle
        var runner: (any JobRunning)?
        var container: PersistentContainer?
        /// The spool it runs on, once open.
        var spool: SpoolDirectory?
        /// The jobs of the database, when it runs on one.
        var databaseJobs: (any SharedJobQueue)?
        /// The spool's and the store's locks, held from the start until the store is closed.
        var ownership: [OwnershipLock] = []
        /// Why the daemon stops by itself (nothing could be acknowledged for too long); nil for a
        /// requested stop.
        var stopReason: DaemonError?
    }

    /// The job kinds this daemon runs.
    public let registry: JobRegistry
    /// The model of the store.
    public let model: ManagedObjectModel
    /// What opens ``DaemonConfiguration/databaseURL``; nil: the daemon runs on SQLite and the
    /// spool only.
    let databaseDriver: DatabaseDriver?
    let hooks: Hooks
    let broadcaster = EventBroadcaster()
    let state: Locked<State>
    private let shutdownRequests: AsyncStream<Void>
    private let shutdownContinuation: AsyncStream<Void>.Continuation

    /// Makes a daemon; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: the configuration to start with (``reload()`` replaces it).
    ///   - registry: the job kinds the daemon runs.
    ///   - model: the model of the store.
    ///   - logger: the daemon's logger; its level is set from the configuration. Job log lines
    ///     carry `job`, `kind` and `attempt` metadata.
    ///   - database: what opens ``DaemonConfiguration/databaseURL`` when the configuration names
    ///     one (LineupPostgres's `.postgres`); a daemon without one runs on SQLite and the spool,
    ///     and refuses to start on a database.
    ///   - hooks: what the daemon calls out to: preparing the store, reloading the
    ///     configuration, the retry jitter, a watchdog (see ``Hooks``).
    public init(
        configuration: DaemonConfiguration, registry: JobRegistry, model: ManagedObjectModel, logger: Logger,
        database: DatabaseDriver? = nil, hooks: Hooks = Hooks()
    ) {
        var logger = logger
        logger.logLevel = configuration.logLevel
        self.registry = registry
        self.model = model
        self.databaseDriver = database
        self.hooks = hooks
        self.state = Locked(State(configuration: configuration, logger: logger))
        (shutdownRequests, shutdownContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Observing

    /// The configuration in effect (reloads change it).
    public var configuration: DaemonConfiguration {
        state.withLock { $0.configuration }
    }

    /// The daemon's logger, at the level in effect.
    var logger: Logger {
        state.withLock { $0.logger }
    }

    /// The stack, once ``run()`` has opened it. After ``run()`` returns its store is closed.
    public var container: PersistentContainer? {
        state.withLock { $0.container }
    }

    /// A new stream of everything the daemon does from now on; it finishes when the daemon
    /// stops. Subscribe before ``run()`` to see every event.
    public func events() -> DaemonEvents {
        broadcaster.subscribe()
    }

    /// Has the runner claim what is due now, and returns once it has: for a test that has moved
    /// its clock and reads the status next (LineupTesting).
    package func claimAvailableJobs() async {
        await state.withLock { $0.runner }?.claimAvailableNow()
    }

    /// Pauses the jobs of `scope` where every daemon of these jobs reads it (the spool's
    /// `paused.json`, the database's `lineup_paused`): they stay queued, unclaimed, across
    /// restarts, until ``resume(_:)``; jobs running go on. Returns false when it was paused
    /// already.
    ///
    /// - Throws: ``DaemonError/Code/notRunning`` when the daemon is not running (pause the
    ///   spool, `SpoolDirectory.pause(_:)`, or the database, `JobDatabase.pause(_:)`, then).
    @discardableResult
    public func pause(_ scope: JobScope) async throws -> Bool {
        try await runnerForControl().setPaused(scope, true)
    }

    /// Resumes the jobs of `scope` (see ``pause(_:)``); returns false when it was not paused.
    @discardableResult
    public func resume(_ scope: JobScope) async throws -> Bool {
        try await runnerForControl().setPaused(scope, false)
    }

    private func runnerForControl() throws -> any JobRunning {
        guard let runner = state.withLock({ $0.runner }) else {
            throw DaemonError(.notRunning, path: configuration.spoolURL.path, "the daemon is not running")
        }
        return runner
    }

    /// What `status.json` would say now; nil when the daemon is not running.
    public func status() async -> DaemonStatus? {
        guard let runner = state.withLock({ $0.runner }) else { return nil }
        return await runner.status()
    }

    // MARK: - Running

    /// Runs until ``requestShutdown()``, a `ServiceGroup`'s graceful shutdown, or cancellation
    /// of the calling task; then shuts down gracefully and returns. Does not handle signals
    /// (see ``run(handlingSignals:)``).
    ///
    /// - Throws: ``DaemonError`` when the daemon cannot start (configuration, spool, store),
    ///   or when the final flush failed.
    public func run() async throws {
        try await run(handlingSignals: false)
    }

    /// Runs as ``run()`` does; with `handlingSignals`, SIGUSR1 flushes and SIGHUP reloads.
    /// (SIGTERM and SIGINT belong to the `ServiceGroup` that runs the daemon.)
    public func run(handlingSignals: Bool) async throws {
        let (configuration, logger) = state.withLock { state in
            precondition(state.phase == .idle, "JobDaemon.run() may be called only once")
            state.phase = .running
            return (state.configuration, state.logger)
        }
        defer {
            state.withLock { $0.phase = .stopped }
            broadcaster.finish()
        }
        // Trapped before the store is opened and active/ recovered, which may take a while: a
        // SIGHUP or SIGUSR1 in that time would otherwise kill the daemon (their default
        // action). The sequence keeps what arrives until the loop reads it.
        let signals: UnixSignalsSequence? = handlingSignals ? await UnixSignalsSequence(trapping: .sigusr1, .sighup) : nil
        let opened = try start(configuration, logger: logger)
        if let databaseJobs = opened.databaseJobs {
            try await run(databaseJobs, opened: opened, signals: signals, configuration: configuration, logger: logger)
        } else {
            let storage = SpoolJobStorage(spool: opened.spool)
            // What a stopped daemon's last flushes enqueued and it did not move, before anything is
            // claimed.
            storage.deliverOutbox(from: opened.container, jobsWritten: 0, logger: logger)
            try await run(storage, opened: opened, signals: signals, configuration: configuration, logger: logger)
        }
    }

    /// Runs the jobs of `jobs` until shutdown.
    ///
    /// Generic, so that it is compiled once for each job storage: the runner's closures that it
    /// hands out (the spool watcher's hints, the flush ticker, the child saves' cue) call a
    /// `JobRunner` of a known storage, and so the runner's work on every job runs specialized, not
    /// through its generic form (which looked up type metadata on every call, about 3% of the
    /// CPU of `lineup-bench spool`).
    private func run<Storage: JobStorage>(
        _ jobs: Storage, opened: Opened, signals: UnixSignalsSequence?, configuration: DaemonConfiguration, logger: Logger
    ) async throws {
        let (spool, container, databaseJobs) = (opened.spool, opened.container, opened.databaseJobs)
        let runner = makeRunner(jobs, spool: spool, container: container, configuration: configuration, logger: logger)
        state.withLock { state in
            state.runner = runner
            state.container = container
            state.spool = spool
            state.databaseJobs = databaseJobs
            state.ownership = opened.ownership
        }
        logger.info(
            "lineup daemon started",
            metadata: [
                "pid": "\(ProcessInfo.processInfo.processIdentifier)", "configuration": "\(configuration.summary)",
                "kinds": "\(registry.kinds.joined(separator: ","))",
            ])
        broadcaster.emit(.started(recovery: opened.recovery))
        await runner.refreshStatus()
        // Rows piling up in the main context are one of the runner's two cues; files in new/ (the
        // spool watcher's hints) are the other.
        let childSaves = container.mainContext.observeChildSaves { [weak runner] saved in
            runner?.mainContextHolds(saved.pendingRowCount)
        }
        defer { childSaves.cancel() }

        let runnerService = RunnerService(runner: runner, events: broadcaster) { [state] in
            state.withLock { ($0.configuration, $0.logger) }
        }
        let services = backgroundServices(
            runner: runner, runnerService: runnerService, spool: spool, databaseJobs: databaseJobs, signals: signals,
            configuration: configuration)
        await runServices(services, logger: logger)
        try await stop(runner: runnerService, container: container, databaseJobs: databaseJobs)
    }

    /// The runner of the jobs in `jobs`: the spool's files or the database's rows.
    private func makeRunner<Storage: JobStorage>(
        _ jobs: Storage, spool: SpoolDirectory, container: PersistentContainer, configuration: DaemonConfiguration,
        logger: Logger
    ) -> JobRunner<Storage> {
        JobRunner(
            jobs: jobs, statusDirectory: spool.root, container: container, registry: registry, paths: configuration.pathPolicy,
            settings: RunnerSettings(configuration, logger: logger), events: broadcaster, jitter: hooks.randomJitter,
            clock: hooks.clock, mayClaim: hooks.mayClaim, flushFailureTimeoutExpired: { [weak self] reason in
                guard let self else { return }
                let error = DaemonError(.flushesFailing, path: configuration.storeLocation, reason)
                self.state.withLock { $0.stopReason = $0.stopReason ?? error }
                self.logger.critical("stopping: no job could be acknowledged for too long", metadata: ["error": "\(reason)"])
                self.requestShutdown()
            })
    }

    /// The daemon's background work, each a `Service`, in the order they start; they stop in the
    /// reverse order: first the signals and the chores, then the spool watcher (no more hints),
    /// then the runner (grace period, final flush), and last the database lease, which must hold
    /// until that final flush has acknowledged its jobs.
    private func backgroundServices<Storage: JobStorage>(
        runner: JobRunner<Storage>, runnerService: RunnerService, spool: SpoolDirectory, databaseJobs: (any SharedJobQueue)?,
        signals: UnixSignalsSequence?, configuration: DaemonConfiguration
    ) -> [any Service] {
        var services: [any Service] = []
        let hint: @Sendable () -> Void
        if let databaseJobs {
            // With a database, new/ is moved into it, whose notification wakes the runner.
            let queue = databaseJobs.services(
                spool: spool, pollInterval: configuration.rescanInterval, wakeRunner: { runner.claimAvailable() },
                givesUpLease: { runnerService.shutdownOutcome?.leftTasksRunning == false })
            services += queue.services
            hint = queue.newFilesHint
        } else {
            hint = { runner.claimAvailable() }
        }
        services.append(runnerService)
        services.append(
            SpoolWatchService(
                spool: spool, rescanInterval: configuration.rescanInterval, usesInotify: configuration.usesInotify, hint: hint))
        services.append(
            FlushTicker(
                flush: { _ = try? await runner.flush(.interval) }, watchdog: hooks.watchdog,
                interval: { [state] in state.withLock { $0.configuration.flushInterval } }))
        services.append(
            RecurringService(name: "status writer", worksAtStart: false, pause: { configuration.statusInterval }) {
                await runner.refreshStatus()
            })
        services.append(
            // An operator's request to cancel a running job is acted on within this pause.
            RecurringService(name: "cancellations", worksAtStart: true, pause: { .milliseconds(250) }) {
                await runner.checkCancellationRequests()
            })
        services.append(retentionService(spool: spool, database: databaseJobs))
        services.append(cronService(spool: spool))
        if let signals {
            services.append(SignalService(daemon: self, signals: signals))
        }
        return services
    }

    /// Runs `services` in a group of their own until ``requestShutdown()`` (or a service that
    /// ends by itself), then shuts them down gracefully, in reverse order, and returns.
    ///
    /// The group runs in a task of its own: a cancellation of the caller's task (or the graceful
    /// shutdown of the group that runs this daemon) asks for the same orderly shutdown rather
    /// than cancelling the runner in the middle of its final flush.
    private func runServices(_ services: [any Service], logger: Logger) async {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger))
        let running = Task {
            defer { self.requestShutdown() }
            do {
                try await group.run()
            } catch {
                logger.error("a background service of the daemon failed; stopping", metadata: ["error": "\(error)"])
            }
        }
        await withTaskCancellationOrGracefulShutdownHandler {
            // Returns once requestShutdown() finishes the stream.
            for await _ in self.shutdownRequests {}
        } onCancelOrGracefulShutdown: {
            self.requestShutdown()
        }
        await group.triggerGracefulShutdown()
        await running.value
    }

    /// Runs the daemon in a `ServiceGroup` that shuts it down gracefully on SIGTERM and
    /// SIGINT, with SIGUSR1 (flush) and SIGHUP (reload) handled too. What `lineupd` calls.
    ///
    /// - Parameter services: services that live as long as the daemon (`lineupd`'s HTTP
    ///   endpoint). They start first and stop last, so that they still answer while the daemon
    ///   stops; if one fails, the daemon stops gracefully and the error is thrown.
    public func runWithSignalHandling(alongside services: [any Service] = []) async throws {
        let (logger, configuration) = state.withLock { ($0.logger, $0.configuration) }
        let companions = services.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        var group = ServiceGroupConfiguration(
            services: companions + [.init(service: SignalHandlingDaemon(daemon: self))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // A backstop for a shutdown that hangs anyway (a final flush on a wedged disk): past the
        // grace period, the cancellation timeout and a minute for the final flush, the group
        // cancels the daemon, and a minute later it ends the process.
        group.maximumGracefulShutdownDuration =
            configuration.gracePeriod + configuration.cancellationTimeout + .seconds(60)
        group.maximumCancellationDuration = .seconds(60)
        try await ServiceGroup(configuration: group).run()
    }

    /// Asks the daemon to stop gracefully; ``run()`` returns once it has. Safe from any
    /// thread, any number of times, before or during ``run()``.
    public func requestShutdown() {
        shutdownContinuation.finish()
    }

    /// Flushes now (as SIGUSR1 does) and acknowledges the jobs the flush carried.
    ///
    /// - Throws: the store's error when the flush failed (its jobs stay unacknowledged), or
    ///   ``DaemonError/Code/notRunning``.
    @discardableResult
    public func flush() async throws -> FlushSummary {
        try await flush(reason: .request)
    }

    func flush(reason: FlushSummary.Reason) async throws -> FlushSummary {
        guard let runner = state.withLock({ $0.runner }) else {
            throw DaemonError(.notRunning, path: nil, "the daemon is not running, so it cannot flush")
        }
        return try await runner.flush(reason)
    }
}

/// Runs a daemon with SIGUSR1 and SIGHUP handling inside a `ServiceGroup`.
private struct SignalHandlingDaemon: Service {
    let daemon: JobDaemon

    func run() async throws {
        try await daemon.run(handlingSignals: true)
    }
}
