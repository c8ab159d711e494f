import Dispatch
import Foundation
import LineupSpool
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
        public var timeout: Duration
        public var feed: @Sendable () -> Void

        public init(timeout: Duration, feed: @escaping @Sendable () -> Void) {
            self.timeout = timeout
            self.feed = feed
        }
    }

    private enum Phase {
        case idle, running, stopped
    }

    private struct State {
        var configuration: DaemonConfiguration
        var logger: Logger
        var phase = Phase.idle
        var runner: JobRunner?
        var container: PersistentContainer?
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
    private let hooks: Hooks
    private let broadcaster = EventBroadcaster()
    private let state: Locked<State>
    private let shutdownRequests: AsyncStream<Void>
    private let shutdownContinuation: AsyncStream<Void>.Continuation

    /// Makes a daemon; nothing happens until ``run()``.
    ///
    /// - Parameter logger: the daemon's logger; its level is set from the configuration. Job
    ///   log lines carry `job`, `kind` and `attempt` metadata.
    public init(
        configuration: DaemonConfiguration, registry: JobRegistry, model: ManagedObjectModel, logger: Logger,
        hooks: Hooks = Hooks()
    ) {
        var logger = logger
        logger.logLevel = configuration.logLevel
        self.registry = registry
        self.model = model
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

    /// What `status.json` would say now; nil when the daemon is not running.
    public func status() async -> DaemonStatus? {
        guard let runner = state.withLock({ $0.runner }) else { return nil }
        return await runner.status()
    }

    // MARK: - Running

    /// Runs until ``requestShutdown()``, a `ServiceGroup`'s graceful shutdown, or cancellation
    /// of the calling task; then shuts down gracefully and returns. Does not handle signals
    /// (see ``runWithSignalHandling()``).
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
        let (spool, container, recovery, ownership, databaseJobs) = try start(configuration, logger: logger)
        let jobs: any JobQueue = databaseJobs ?? SpoolJobQueue(spool: spool)
        let runner = JobRunner(
            jobs: jobs, statusDirectory: spool.root, container: container, registry: registry, paths: configuration.pathPolicy,
            settings: RunnerSettings(configuration, logger: logger), events: broadcaster, jitter: hooks.randomJitter,
            flushFailureTimeoutExpired: { [weak self] reason in
                guard let self else { return }
                let error = DaemonError(.flushesFailing, path: configuration.storeLocation, reason)
                self.state.withLock { $0.stopReason = $0.stopReason ?? error }
                self.logger.critical("stopping: no job could be acknowledged for too long", metadata: ["error": "\(reason)"])
                self.requestShutdown()
            })
        state.withLock { state in
            state.runner = runner
            state.container = container
            state.ownership = ownership
        }
        logger.info(
            "lineup daemon started",
            metadata: [
                "pid": "\(ProcessInfo.processInfo.processIdentifier)", "configuration": "\(configuration.summary)",
                "kinds": "\(registry.kinds.joined(separator: ","))",
            ])
        broadcaster.emit(.started(recovery: recovery))
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
            runner: runnerService, spool: spool, databaseJobs: databaseJobs, signals: signals, configuration: configuration)
        await runServices(services, logger: logger)
        try await stop(runner: runnerService, container: container, databaseJobs: databaseJobs)
    }

    /// The daemon's background work, each a `Service`, in the order they start; they stop in the
    /// reverse order: first the signals and the chores, then the spool watcher (no more hints),
    /// then the runner (grace period, final flush), and last the database lease, which must hold
    /// until that final flush has acknowledged its jobs.
    private func backgroundServices(
        runner runnerService: RunnerService, spool: SpoolDirectory, databaseJobs: DatabaseJobQueue?,
        signals: UnixSignalsSequence?, configuration: DaemonConfiguration
    ) -> [any Service] {
        let runner = runnerService.runner
        var services: [any Service] = []
        let hint: @Sendable () -> Void
        if let databaseJobs {
            // With a database, new/ is moved into it, whose notification wakes the runner.
            let intake = DatabaseIntake(spool: spool, database: databaseJobs.database, logger: logger)
            services.append(
                JobLeaseService(
                    jobs: databaseJobs, pollInterval: configuration.rescanInterval, hint: { runner.claimAvailable() },
                    givesUpLease: { runnerService.shutdownOutcome?.leftTasksRunning == false }))
            hint = { intake.hint() }
        } else {
            hint = { runner.claimAvailable() }
        }
        services.append(runnerService)
        services.append(
            SpoolWatchService(
                spool: spool, rescanInterval: configuration.rescanInterval, usesInotify: configuration.usesInotify, hint: hint))
        services.append(FlushTicker(runner: runner, watchdog: hooks.watchdog) { [state] in state.withLock { $0.configuration.flushInterval } })
        services.append(
            RecurringService(name: "status writer", worksAtStart: false, pause: { configuration.statusInterval }) {
                await runner.refreshStatus()
            })
        services.append(retentionService(spool: spool, database: databaseJobs?.database))
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

    // MARK: - Start and stop

    private func start(_ configuration: DaemonConfiguration, logger: Logger) throws(DaemonError) -> (
        SpoolDirectory, PersistentContainer, SpoolRecovery, [OwnershipLock], DatabaseJobQueue?
    ) {
        try configuration.validate()
        let spool: SpoolDirectory
        do {
            spool = try SpoolDirectory(root: configuration.spoolURL, durability: configuration.spoolDurability)
        } catch {
            throw DaemonError(.spoolUnavailable, path: configuration.spoolURL.path, "cannot open the spool", underlying: error)
        }
        do {
            // As `lineup run` does: a fresh deployment's first export must not fail for want of it.
            try FileManager.default.createDirectory(at: configuration.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw DaemonError(
                .invalidConfiguration, path: configuration.outputDirectory.path, "cannot create the output directory",
                underlying: error)
        }
        // Before anything is read: a second daemon must not recover the first one's active/
        // jobs, nor hand out primary keys beside it. A database is shared by design: daemons
        // take keys from its sequences and claims with its row locks.
        var ownership = [try OwnershipLock.acquire(configuration.spoolURL.appending(path: "lock").path, guarding: "spool")]
        if configuration.databaseURL == nil {
            ownership.append(try OwnershipLock.acquire(configuration.storeURL.path + ".lock", guarding: "store"))
        }
        let container: PersistentContainer
        do {
            container = try PersistentContainer(
                url: configuration.databaseURL ?? configuration.storeURL, model: model, logger: logger,
                maximumReaderCount: PersistentContainer.readerCount(forConcurrentTasks: configuration.totalConcurrency))
        } catch {
            throw DaemonError(.storeUnavailable, path: configuration.storeLocation, "cannot open the store", underlying: error)
        }
        if let prepare = hooks.prepareStore {
            do {
                try prepare(container, logger)
            } catch {
                try? container.close()
                throw DaemonError(
                    .storePreparationFailed, path: configuration.storeLocation, "preparing the store failed",
                    underlying: error)
            }
        }
        // With a database, the spool's active/ holds only what the intake was moving into it
        // (DatabaseIntake finishes that), and the database takes back the jobs of daemons that died.
        var recovery = SpoolRecovery()
        if configuration.databaseURL == nil {
            do {
                recovery = try spool.recoverActive(maxInterruptions: configuration.maxInterruptions)
            } catch {
                try? container.close()
                throw DaemonError(
                    .spoolUnavailable, path: configuration.spoolURL.path, "cannot recover active/", underlying: error)
            }
        }
        if !recovery.isEmpty {
            logger.warning(
                "recovered jobs a stopped daemon left in active/",
                metadata: [
                    "requeued": "\(recovery.requeued.joined(separator: ","))",
                    "poisoned": "\(recovery.poisoned.joined(separator: ","))",
                    "completed": "\(recovery.completed.joined(separator: ","))",
                    "failed": "\(recovery.failed.joined(separator: ","))",
                ])
        }
        do {
            try spool.removeStaleTemporaryFiles()
        } catch {
            logger.warning("cannot clean the spool's tmp/", metadata: ["error": "\(error)"])
        }
        var databaseJobs: DatabaseJobQueue?
        if let databaseURL = configuration.databaseURL {
            do {
                let database = try JobDatabase(url: databaseURL, logger: logger)
                do {
                    databaseJobs = try DatabaseJobQueue(
                        database: database, lease: configuration.lease, poisonThreshold: configuration.maxInterruptions,
                        dependencyWaitTimeout: configuration.dependencyWaitTimeout,
                        claimBatch: DatabaseJobQueue.claimBatch(forConcurrentJobs: configuration.totalConcurrency), logger: logger,
                        mustStop: { [weak self] error in self?.stopWithoutWriting(error) })
                } catch {
                    database.close()
                    throw error
                }
            } catch {
                try? container.close()
                throw DaemonError(.storeUnavailable, path: configuration.storeLocation, "cannot open the jobs table", underlying: error)
            }
        }
        return (spool, container, recovery, ownership, databaseJobs)
    }

    /// After the services have stopped: closes the store and releases the locks, unless tasks
    /// still run; throws why the daemon stopped, if it was not asked to.
    private func stop(runner: RunnerService, container: PersistentContainer, databaseJobs: DatabaseJobQueue?) async throws {
        let (configuration, logger) = state.withLock { ($0.configuration, $0.logger) }
        guard let outcome = runner.shutdownOutcome else {
            preconditionFailure("the daemon's services stopped before the runner's shutdown ended")
        }
        if outcome.leftTasksRunning {
            // Never close the store under a running task: it may hold a reader, and closing
            // waits for every reader, without bound. The process is to exit; the kernel drops
            // the locks and SQLite's WAL keeps the store whole. The ownership locks stay held
            // meanwhile, since the stray tasks may still write.
            state.withLock { $0.runner = nil }
            let jobs = (outcome.abandoned + outcome.runaway).map(\.description).joined(separator: ", ")
            logger.critical("stopped with jobs still running; the store is left open", metadata: ["jobs": "\(jobs)"])
            broadcaster.emit(.stopped)
            var message = ""
            if !outcome.abandoned.isEmpty {
                let abandoned = outcome.abandoned.map(\.description).joined(separator: ", ")
                message += "\(outcome.abandoned.count) job(s) ignored cancellation for \(DaemonConfiguration.seconds(configuration.cancellationTimeout)) s "
                    + "after the grace period (\(abandoned)); they stay in active/ and run again at the next start"
            }
            if !outcome.runaway.isEmpty {
                let runaway = outcome.runaway.map(\.description).joined(separator: ", ")
                message += (message.isEmpty ? "" : "; ")
                    + "\(outcome.runaway.count) job(s) that timed out never stopped (\(runaway)); they are in failed/"
            }
            throw DaemonError(.jobsDidNotStop, path: configuration.spoolURL.path, message)
        }
        let flushError = outcome.flushError
        // Its lease was given up by the lease service, the last to stop.
        databaseJobs?.database.close()
        do {
            try container.checkpoint()
        } catch {
            logger.error("WAL checkpoint failed", metadata: ["error": "\(error)"])
        }
        do {
            try container.close()
        } catch {
            logger.error("closing the store failed", metadata: ["error": "\(error)"])
        }
        let ownership = state.withLock { state in
            state.runner = nil
            defer { state.ownership = [] }
            return state.ownership
        }
        for lock in ownership {
            lock.release()
        }
        logger.info("stopped")
        broadcaster.emit(.stopped)
        if let stopReason = state.withLock({ $0.stopReason }) {
            throw stopReason
        }
        if let flushError {
            throw DaemonError(
                .finalFlushFailed, path: configuration.storeLocation,
                "the final flush failed; its jobs were returned to new/", underlying: flushError)
        }
    }

    /// Told by the database's job queue that what this daemon's jobs did must not be written (its
    /// claims are no longer its own, or another daemon wrote the same rows): stops at once, its
    /// final flush fails as the last one did and gives the jobs back, and `run()` throws `error`.
    private func stopWithoutWriting(_ error: DaemonError) {
        state.withLock { $0.stopReason = $0.stopReason ?? error }
        logger.critical("stopping without writing what its jobs did", metadata: ["error": "\(error)"])
        requestShutdown()
    }

    // MARK: - Chores

    /// Removes done jobs older than ``DaemonConfiguration/keepDone`` at start and then every
    /// hour (or every tenth of the retention, when that is shorter). Read each time, so that a
    /// reload can turn it on or off.
    private func retentionService(spool: SpoolDirectory, database: JobDatabase?) -> RecurringService {
        RecurringService(
            name: "retention", worksAtStart: true,
            pause: { [state] in min(.seconds(3_600), (state.withLock { $0.configuration.keepDone } ?? .seconds(3_600)) / 10) }
        ) {
            guard let keepDone = self.configuration.keepDone else { return }
            let cutoff = Date().addingTimeInterval(-Double(keepDone.components.seconds))
            do {
                let pruning = try spool.pruneDone(finishedBefore: cutoff)
                if !pruning.removed.isEmpty || !pruning.keptForDependents.isEmpty {
                    self.logger.info(
                        "removed done jobs past their retention",
                        metadata: [
                            "removed": "\(pruning.removed.count)", "keptForDependents": "\(pruning.keptForDependents.count)",
                            "finishedBefore": "\(cutoff.ISO8601Format())",
                        ])
                }
            } catch {
                self.logger.warning("cannot remove done jobs past their retention", metadata: ["error": "\(error)"])
            }
            if let database {
                await self.pruneDone(in: database, finishedBefore: cutoff)
            }
        }
    }

    /// The database's side of the retention, on a thread of its own: its calls block.
    private func pruneDone(in database: JobDatabase, finishedBefore cutoff: Date) async {
        let logger = self.logger
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                do {
                    let removed = try database.pruneDone(finishedBefore: cutoff)
                    if removed > 0 {
                        logger.info(
                            "removed done jobs of the database past their retention",
                            metadata: ["removed": "\(removed)", "finishedBefore": "\(cutoff.ISO8601Format())"])
                    }
                } catch {
                    logger.warning("cannot remove done jobs of the database past their retention", metadata: ["error": "\(error)"])
                }
                continuation.resume()
            }
        }
    }

    /// Enqueues the recurring jobs (``DaemonConfiguration/cron``) at start and then at the
    /// start of every minute, when a schedule may fire. The entries are read each time, so that
    /// a reload changes them.
    private func cronService(spool: SpoolDirectory) -> RecurringService {
        let scheduler = CronScheduler(spool: spool, logger: logger)
        return RecurringService(
            name: "cron", worksAtStart: true,
            // Just past the next whole minute: a schedule fires at a minute's start.
            pause: { .seconds(60 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60) + 0.05) }
        ) {
            let entries = self.configuration.cron
            if !entries.isEmpty {
                scheduler.enqueueDue(entries)
            }
        }
    }

    // MARK: - Reloading

    /// Re-reads the configuration (the ``Hooks/reloadConfiguration`` hook, or the
    /// configuration file) and applies its reloadable settings, as SIGHUP does.
    ///
    /// - Returns: the configuration now in effect.
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration``; the settings in
    ///   effect stay as they were.
    @discardableResult
    public func reload() throws(DaemonError) -> DaemonConfiguration {
        let current = configuration
        let fresh: DaemonConfiguration
        if let hook = hooks.reloadConfiguration {
            do {
                fresh = try hook()
            } catch let error as DaemonError {
                throw error
            } catch {
                throw DaemonError(
                    .invalidConfiguration, path: current.configurationFile?.path, "cannot reload the configuration",
                    underlying: error)
            }
        } else if let file = current.configurationFile {
            fresh = try DaemonConfigurationFile.load(file, over: current)
        } else {
            state.withLock { $0.logger }.info("reload: no configuration file to re-read")
            return current
        }
        return try reload(with: fresh)
    }

    /// Applies the reloadable settings of `fresh` (log level, flush interval, concurrency and
    /// claim window, retry policy, grace period, cancellation and dependency timeouts); the
    /// others need a restart and are ignored with a warning.
    ///
    /// - Returns: the configuration now in effect.
    @discardableResult
    public func reload(with fresh: DaemonConfiguration) throws(DaemonError) -> DaemonConfiguration {
        let current = configuration
        let merged = current.reloading(from: fresh)
        try merged.validate()
        var requested = fresh
        requested.configurationFile = current.configurationFile
        let needsRestart = current.settingsNeedingRestart(toBecome: requested)
        let (logger, runner) = state.withLock { state in
            state.configuration = merged
            state.logger.logLevel = merged.logLevel
            return (state.logger, state.runner)
        }
        runner?.apply(RunnerSettings(merged, logger: logger))
        if !needsRestart.isEmpty {
            logger.warning(
                "reload: these settings need a restart; kept as they were",
                metadata: ["settings": "\(needsRestart.joined(separator: ","))"])
        }
        logger.info("configuration reloaded", metadata: ["configuration": "\(merged.summary)"])
        broadcaster.emit(.reloaded(merged))
        return merged
    }
}

/// Runs a daemon with SIGUSR1 and SIGHUP handling inside a `ServiceGroup`.
private struct SignalHandlingDaemon: Service {
    let daemon: JobDaemon

    func run() async throws {
        try await daemon.run(handlingSignals: true)
    }
}
