import Foundation
import LineupLocking
import LineupSpool
import Logging
public import ServiceLifecycle
import UnixSignals

/// The daemon's background work as `Service`s, and the groups that run them.
extension JobDaemon {
    /// The daemon's background work, each a `Service`, in the order they start; they stop in the
    /// reverse order: first the signals and the chores, then the spool watcher (no more hints),
    /// then the runner (grace period, final flush), and last the database lease, which must hold
    /// until that final flush has acknowledged its jobs.
    func backgroundServices<Storage: JobStorage>(
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
    func runServices(_ services: [any Service], logger: Logger) async {
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
}

/// Runs a daemon with SIGUSR1 and SIGHUP handling inside a `ServiceGroup`.
private struct SignalHandlingDaemon: Service {
    let daemon: JobDaemon

    func run() async throws {
        try await daemon.run(handlingSignals: true)
    }
}
