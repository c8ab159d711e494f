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
    /// Finished by ``requestShutdown()``: what ``runServices(_:logger:)`` waits for.
    let shutdownRequests: AsyncStream<Void>
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
