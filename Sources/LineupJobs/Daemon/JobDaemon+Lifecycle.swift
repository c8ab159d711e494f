import Dispatch
import Foundation
import LineupLocking
import LineupSpool
import LineupStore
import Logging

/// Opening what the daemon runs on, and closing it after its services have stopped.
extension JobDaemon {
    /// What a start opened, for the daemon to run on and to close at its stop.
    struct Opened {
        let spool: SpoolDirectory
        let container: PersistentContainer
        /// What the start found in `active/` and did with it.
        let recovery: SpoolRecovery
        /// The spool's and the store's locks, held until the store is closed.
        let ownership: [OwnershipLock]
        /// The jobs of the database, when the daemon runs on one; nil on the spool alone.
        let databaseJobs: (any SharedJobQueue)?
    }

    /// Validates the configuration, takes the spool's and the store's locks, opens the store
    /// (seeding it through ``Hooks/prepareStore``), recovers `active/`, and opens the jobs table
    /// when there is a database. What it opened is closed again when a later step fails.
    func start(_ configuration: DaemonConfiguration, logger: Logger) throws(DaemonError) -> Opened {
        try configuration.validate()
        // Before anything is opened: without its driver the daemon cannot run there at all.
        let database = try configuration.databaseURL.map { url throws(DaemonError) in
            DatabaseAt(url: url, driver: try databaseDriver(for: url, configuration))
        }
        let spool: SpoolDirectory
        do {
            spool = try SpoolDirectory(root: configuration.spoolURL, durability: configuration.spoolDurability, now: hooks.clock.now)
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
        let container = try openStore(configuration, database: database, logger: logger)
        let recovery: SpoolRecovery
        let databaseJobs: (any SharedJobQueue)?
        do {
            recovery = try recover(spool, configuration, logger: logger)
            databaseJobs = try database.map { database throws(DaemonError) in
                try openJobsTable(database, configuration, logger: logger)
            }
        } catch {
            try? container.close()
            throw error
        }
        return Opened(spool: spool, container: container, recovery: recovery, ownership: ownership, databaseJobs: databaseJobs)
    }

    /// A database URL with the driver that opens it.
    struct DatabaseAt {
        let url: URL
        let driver: DatabaseDriver
    }

    /// Opens the store (the database's, or the SQLite file) and lets ``Hooks/prepareStore`` seed it.
    private func openStore(_ configuration: DaemonConfiguration, database: DatabaseAt?, logger: Logger) throws(DaemonError)
        -> PersistentContainer
    {
        let container: PersistentContainer
        let readers = PersistentContainer.readerCount(forConcurrentTasks: configuration.totalConcurrency)
        do {
            if let database {
                container = try database.driver.openStore(
                    database.url, model, logger, configuration.databaseConnectionBudget.storeReaders)
            } else {
                container = try PersistentContainer(
                    url: configuration.storeURL, model: model, logger: logger, maximumReaderCount: readers)
            }
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
        return container
    }

    /// Returns what a stopped daemon left in `active/` to `new/` (or sets it aside), and clears
    /// `tmp/` of stale files. With a database, the spool's active/ holds only what the intake was
    /// moving into it (DatabaseIntake finishes that), and the database takes back the jobs of
    /// daemons that died.
    private func recover(_ spool: SpoolDirectory, _ configuration: DaemonConfiguration, logger: Logger) throws(DaemonError)
        -> SpoolRecovery
    {
        var recovery = SpoolRecovery()
        if configuration.databaseURL == nil {
            do {
                recovery = try spool.recoverActive(maxInterruptions: configuration.maxInterruptions)
            } catch {
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
        return recovery
    }

    /// The driver that opens `url`: the one this daemon was given, if it opens that scheme.
    private func databaseDriver(for url: URL, _ configuration: DaemonConfiguration) throws(DaemonError) -> DatabaseDriver {
        guard let databaseDriver, databaseDriver.opens(url) else {
            throw DaemonError(
                .invalidConfiguration, path: nil,
                "`database` is \(configuration.storeLocation), but this daemon was given no driver for \(url.scheme ?? "it") "
                    + "(link LineupPostgres and pass `database: .postgres` to JobDaemon)")
        }
        return databaseDriver
    }

    /// Opens the jobs of the database and registers this daemon there.
    private func openJobsTable(_ database: DatabaseAt, _ configuration: DaemonConfiguration, logger: Logger) throws(DaemonError)
        -> any SharedJobQueue
    {
        do {
            return try database.driver.openJobs(database.url, configuration, logger) { [weak self] error in
                self?.stopWithoutWriting(error)
            }
        } catch {
            throw DaemonError(.storeUnavailable, path: configuration.storeLocation, "cannot open the jobs table", underlying: error)
        }
    }

    /// After the services have stopped: closes the store and releases the locks, unless tasks
    /// still run; throws why the daemon stopped, if it was not asked to.
    func stop(runner: RunnerService, container: PersistentContainer, databaseJobs: (any SharedJobQueue)?) async throws {
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
        databaseJobs?.close()
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

    /// Told by the database's job storage that what this daemon's jobs did must not be written (its
    /// claims are no longer its own, or another daemon wrote the same rows): stops at once, its
    /// final flush fails as the last one did and gives the jobs back, and `run()` throws `error`.
    func stopWithoutWriting(_ error: DaemonError) {
        state.withLock { $0.stopReason = $0.stopReason ?? error }
        logger.critical("stopping without writing what its jobs did", metadata: ["error": "\(error)"])
        requestShutdown()
    }
}
