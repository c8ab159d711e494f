import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LineupAllocator
import LineupdSignals
import LineupJobs
import LineupPostgres
import LineupServer
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import SurfJournal
import SurfJournalFeeds

/// `lineupd`: the daemon. Options override the configuration file, which overrides the
/// defaults; SIGHUP re-reads the file and re-applies the options over it.
@main
struct LineupDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lineupd",
        abstract: "Runs Lineup jobs from a spool directory, or from a PostgreSQL database (--database), until SIGTERM or SIGINT.",
        discussion: """
            SIGUSR1 flushes now; SIGHUP re-reads the configuration file; SIGTERM and SIGINT stop \
            claiming, let running jobs finish within the grace period, return the rest to new/, \
            flush, checkpoint the WAL and exit 0.

            Exit statuses (sysexits.h): 0 stopped as asked; 64 an invalid option (EX_USAGE); 78 an \
            invalid configuration file (EX_CONFIG); 70 jobs ignored cancellation at shutdown and were left in active/ \
            (EX_SOFTWARE); 74 the store or spool cannot be used, or flushes kept failing \
            (EX_IOERR); 75 another process owns the spool or the store, or with --database this daemon's \
            lease ran out (EX_TEMPFAIL: start it again); 69 the HTTP \
            endpoint (--http-address) cannot serve, e.g. its port is taken (EX_UNAVAILABLE).
            """)

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        // SIGHUP, SIGUSR1, SIGUSR2, SIGTERM and SIGINT have had handlers since the binary loaded
        // (LineupdSignals): one that comes before the daemon's own handlers exist is noted, and
        // sent again once the daemon has started (below).
        // Every job's latest lines are also kept for the dashboard's job page.
        let jobLog = JobLog()
        switch options.logFormat {
        case .text:
            LoggingSystem.bootstrap { MultiplexLogHandler([StreamLogHandler.standardError(label: $0), jobLog.handler(label: $0)]) }
        case .json:
            LoggingSystem.bootstrap { MultiplexLogHandler([JSONLogHandler.standardError(label: $0), jobLog.handler(label: $0)]) }
        }
        let logger = Logger(label: "lineupd")
        logger.info(
            "lineupd starting",
            metadata: [
                "pid": "\(ProcessInfo.processInfo.processIdentifier)", "malloc": "\(ProcessAllocator.current)",
                "early_signals": "\(lineupd_early_handlers_installed() ? "noted" : "default")",
            ])
        let options = self.options
        let configuration: DaemonConfiguration
        do {
            configuration = try options.makeConfiguration()
        } catch let error as DaemonError where error.code == .invalidConfiguration && error.path != nil {
            // The configuration file, not the command line: EX_CONFIG, which tells a supervisor
            // that restarting will not help until the file is fixed.
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            throw ExitCode(78)
        } catch {
            throw ValidationError("\(error)")
        }
        // Before the daemon exists: its runner makes spans only if a tracer is there when it starts.
        var tracingService: (any Service)?
        if let otelEndpoint = configuration.otelEndpoint {
            do {
                tracingService = try TracingBackend.bootstrap(endpoint: otelEndpoint, logger: logger)
            } catch {
                throw ValidationError("cannot export spans to \(otelEndpoint.absoluteString): \(error)")
            }
            logger.info("exporting spans over OTLP/HTTP", metadata: ["endpoint": "\(TracingBackend.tracesURL(of: otelEndpoint))"])
        }
        // Read before the fetcher's client exists: past it, nothing throws before the client is
        // shut down.
        var endpoint: (host: String, port: Int, token: ActionToken?)?
        if let httpAddress = options.httpAddress {
            let (host, port): (String, Int)
            do {
                (host, port) = try HTTPEndpoint.parse(address: httpAddress)
            } catch {
                throw ValidationError("\(error)")
            }
            var token: ActionToken?
            if let file = options.httpTokenFile {
                do {
                    token = try ActionToken(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                    throw ExitCode(78)
                }
            }
            endpoint = (host, port, token)
        }
        // Run by systemd (Type=notify): readiness, reloads, stopping and status go to it, and
        // the flush loop feeds its watchdog (deploy/lineupd.service).
        let notifier = SystemdNotifier()
        // One HTTP client for every fetch-buoy job of the daemon, shut down when it stops. A
        // reload (SIGHUP) hands it the new allowedHosts.
        let fetcher = BuoyFeedFetcher(policy: BuoyFeedPolicy(allowedHosts: configuration.allowedHosts))
        var registry = SurfJournalJobs.registry
        SurfJournalFeeds.register(in: &registry, fetcher: fetcher)
        let daemon = JobDaemon(
            configuration: configuration, registry: registry, model: SurfJournalModel.model,
            logger: logger, database: .postgres,
            hooks: JobDaemon.Hooks(
                reloadConfiguration: {
                    let reloaded = try options.makeConfiguration()
                    fetcher.policy.allowedHosts = reloaded.allowedHosts
                    return reloaded
                }, watchdog: notifier?.watchdog))
        // The daemon's handlers of SIGTERM and SIGINT (its ServiceGroup's) and of SIGHUP and
        // SIGUSR1 exist once it has started: the signals that came before are theirs now.
        let earlySignals = Task { [events = daemon.events()] in
            for await event in events {
                guard case .started = event else { continue }
                let replayed = lineupd_replay_early_signals()
                if replayed > 0 {
                    logger.info("signals that came during start-up are handled now", metadata: ["signals": "\(replayed)"])
                }
                return
            }
        }
        defer { earlySignals.cancel() }
        let notifications = notifier.map { notifier in
            let events = daemon.events()
            return Task { await notifier.follow(events, of: daemon) }
        }
        defer { notifications?.cancel() }
        // First, so that it stops last: the final flush's spans are exported.
        var services: [any Service] = tracingService.map { [$0] } ?? []
        // On a database, the dashboard's job browser lists the table (every host's jobs) and
        // every daemon's lease, not this host's spool.
        let databaseBrowser = configuration.databaseURL.map { DatabaseJobBrowser(url: $0, logger: logger) }
        defer { databaseBrowser?.close() }
        if case let (host, port, token)? = endpoint {
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            let metrics = DaemonMetrics()
            let events = daemon.events()
            Task { await metrics.follow(events) }
            services.append(
                HTTPEndpoint(
                    host: host, port: port, daemon: daemon, spoolURL: configuration.spoolURL, metrics: metrics,
                    registry: registry, token: token, jobLog: jobLog, logger: logger, databaseBrowser: databaseBrowser))
        }
        var failure: (any Error)?
        do {
            try await daemon.runWithSignalHandling(alongside: services)
            await notifications?.value
        } catch {
            failure = error
        }
        // After the daemon, whose jobs have all ended: no fetch is under way.
        try? await fetcher.shutdown()
        if let error = failure as? DaemonError {
            logger.critical("lineupd stopped: \(error)")
            throw ExitCode(Self.exitStatus(for: error))
        } else if let failure {
            // Only the HTTP endpoint throws anything else: the daemon stopped gracefully after it.
            logger.critical("lineupd stopped: the HTTP endpoint at \(options.httpAddress ?? "?") failed: \(failure)")
            throw ExitCode(69)
        }
    }

    /// The `sysexits.h` status that tells a supervisor what kind of failure stopped the daemon.
    static func exitStatus(for error: DaemonError) -> Int32 {
        switch error.code {
        case .invalidConfiguration: error.path == nil ? 64 : 78  // EX_USAGE; EX_CONFIG for the file
        case .jobsDidNotStop: 70  // EX_SOFTWARE
        case .alreadyOwned, .leaseLost, .conflictWithAnotherDaemon: 75  // EX_TEMPFAIL: a restart may do
        default: 74  // EX_IOERR: the spool, the store, flushes
        }
    }
}
