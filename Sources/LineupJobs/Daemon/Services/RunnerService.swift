import LineupLocking
import Logging
import ServiceLifecycle

/// The runner's side of the daemon's lifecycle: it runs jobs from the start, and stops them when
/// the service group shuts down (or is cancelled), as DESIGN §3's SIGTERM row orders: no more
/// claims; running jobs get the grace period; the rest are cancelled and returned to `new/`; a
/// final flush acknowledges what finished.
///
/// It sits early in the group, so that it stops after the services that feed it (the spool
/// watcher, the flush ticker, the signals) and before those it needs (the database lease).
final class RunnerService: Service, CustomStringConvertible, Sendable {
    let runner: any JobRunning
    private let events: EventBroadcaster
    /// The configuration and logger in effect when shutdown begins (a reload may change them).
    private let settings: @Sendable () -> (DaemonConfiguration, Logger)
    private let outcome = Locked<RunnerShutdownOutcome?>(nil)

    init(runner: any JobRunning, events: EventBroadcaster, settings: @escaping @Sendable () -> (DaemonConfiguration, Logger)) {
        self.runner = runner
        self.events = events
        self.settings = settings
    }

    var description: String { "job runner" }

    /// How the shutdown ended; nil until it has.
    var shutdownOutcome: RunnerShutdownOutcome? {
        outcome.withLock { $0 }
    }

    func run() async {
        // Returns on graceful shutdown and throws on cancellation: the runner stops either way.
        try? await gracefulShutdown()
        let (configuration, logger) = settings()
        await runner.stopStarting()
        events.emit(.stopping)
        logger.info("stopping", metadata: ["grace_s": "\(DaemonConfiguration.seconds(configuration.gracePeriod))"])
        let result = await runner.finishShutdown(
            gracePeriod: configuration.gracePeriod, cancellationTimeout: configuration.cancellationTimeout)
        outcome.withLock { $0 = result }
    }
}
