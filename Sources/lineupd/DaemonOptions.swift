import ArgumentParser
import Foundation
import LineupJobs
import LineupStore
import Logging

/// The daemon's command-line options.
struct DaemonOptions: ParsableArguments, Sendable {
    @Option(help: "The SQLite store (created on first run).")
    var store: String?
    @Option(help: "A PostgreSQL database (postgres://user@host:port/db) for the store and the jobs, shared by every lineupd pointed at it; the spool becomes this host's intake (default: the SQLite store and the spool's jobs).")
    var database: String?
    @Option(help: "With --database: seconds this daemon's claims outlive its last heartbeat, after which other daemons take its jobs back (default 30).")
    var lease: Double?
    @Option(help: "With --database: a PostgreSQL URL direct to the server, to listen on for new jobs (LISTEN) when --database goes through a pooler in transaction mode such as PgBouncer, where a LISTEN hears nothing (default: --database itself; polling finds jobs either way, later).")
    var listenDatabase: String?
    @Option(help: "With --database: the most connections this daemon opens to it, its listener's included: 4 (the store's writer, the main context's reader, key blocks, the listener), readers for the jobs at once and one more, and one or two for the jobs; at least concurrency + 6 (default: max(5, concurrency + 1) + 6).")
    var databaseConnections: Int?
    @Option(help: "The spool directory (tmp/ new/ active/ done/ failed/).")
    var spool: String?
    @Option(help: "The directory job inputs are read from.")
    var input: String?
    @Option(help: "The directory job outputs are written to.")
    var output: String?
    @Option(help: "A JSON configuration file (keys: store, spool, input, output, concurrency, flushInterval, gracePeriod, logLevel, ...).")
    var config: String?
    @Option(help: "Jobs run at once, 1 to 1024 (default: the number of cores).")
    var concurrency: Int?
    @Option(help: "Seconds between flushes, more than 0 and at most a year (default 5).")
    var flushInterval: Double?
    @Flag(inversion: .prefixedNo, help: "Flush as soon as no job is queued or running, not only every flush interval (default: on).")
    var flushWhenIdle: Bool?
    @Option(help: "Flush as soon as jobs have saved more than this many rows into the main context, 0 for never (default 25000).")
    var flushRowLimit: Int?
    @Option(help: "Flush as soon as this many finished jobs wait for their acknowledgement, 0 for never (default 1000).")
    var flushJobLimit: Int?
    @Option(help: "Seconds running jobs get to finish at shutdown, 0 to a year (default 20).")
    var gracePeriod: Double?
    @Option(help: "trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: String?
    @Option(help: "How long done jobs are kept, e.g. 7d or 12h (default: forever); jobs others wait for are kept.")
    var keepDone: String?
    @Option(help: "How long one attempt of a job may run, e.g. 30m (default: no limit); a job file's `timeout` and the configuration's `timeoutByKind` come first.")
    var timeout: String?
    @Option(help: "Serve the dashboard, its API, /metrics (Prometheus) and /health at HOST:PORT, e.g. 127.0.0.1:9464 (default: off).")
    var httpAddress: String?
    @Option(help: "A file whose first line is the token the dashboard's actions (retry, discard, flush) need; without it they are off.")
    var httpTokenFile: String?
    @Option(help: "A host name fetch-buoy jobs may fetch from, exactly (e.g. www.ndbc.noaa.gov); repeat it for several. Replaces the configuration file's allowedHosts (default: none).")
    var allowedHost: [String] = []
    @Option(help: "Export a span per job attempt and per flush over OTLP/HTTP to this collector, e.g. http://127.0.0.1:4318 (spans go to its /v1/traces); job files' traceparent makes them children of the enqueuer's span (default: off).")
    var otelEndpoint: String?
    @Option(help: "text, or json: one JSON object per line, for journald and log shippers.")
    var logFormat: LogFormat = .text
    @Option(help: ArgumentHelp(LimitOption.help))
    var limit: [String] = []

    enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
        case text, json
    }

    /// Defaults, then the configuration file, then these options.
    func makeConfiguration() throws -> DaemonConfiguration {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var configuration = DaemonConfiguration(
            storeURL: here.appendingPathComponent("lineup.sqlite"), spoolURL: here.appendingPathComponent("spool"),
            inputDirectory: here, outputDirectory: here.appendingPathComponent("output"))
        if let config {
            let file = URL(fileURLWithPath: config, relativeTo: here).standardizedFileURL
            configuration = try DaemonConfigurationFile.load(file, over: configuration)
            configuration.configurationFile = file
        }
        if let store { configuration.storeURL = URL(fileURLWithPath: store, relativeTo: here).standardizedFileURL }
        if let database {
            // Several hosts with their ports are a libpq URL that URL(string:) refuses.
            guard let url = PostgresConnectionSettings.url(libpqURL: database) ?? URL(string: database) else {
                throw ValidationError("--database \(PostgresConnectionSettings.redactedLocation(of: database)) is not a URL")
            }
            configuration.databaseURL = url
        }
        if let listenDatabase {
            guard let url = PostgresConnectionSettings.url(libpqURL: listenDatabase) ?? URL(string: listenDatabase) else {
                throw ValidationError("--listen-database \(PostgresConnectionSettings.redactedLocation(of: listenDatabase)) is not a URL")
            }
            configuration.listenDatabaseURL = url
        }
        if let databaseConnections { configuration.databaseConnections = databaseConnections }
        if let lease { configuration.lease = try DaemonConfiguration.duration(seconds: lease, of: "--lease") }
        if let spool { configuration.spoolURL = URL(fileURLWithPath: spool, relativeTo: here).standardizedFileURL }
        if let input { configuration.inputDirectory = URL(fileURLWithPath: input, relativeTo: here).standardizedFileURL }
        if let output { configuration.outputDirectory = URL(fileURLWithPath: output, relativeTo: here).standardizedFileURL }
        if let concurrency { configuration.maxConcurrentJobs = concurrency }
        if let flushInterval {
            configuration.flushInterval = try DaemonConfiguration.duration(seconds: flushInterval, of: "--flush-interval")
        }
        if let flushWhenIdle {
            configuration.flushesWhenIdle = flushWhenIdle
        }
        if let flushRowLimit {
            configuration.flushRowLimit = flushRowLimit
        }
        if let flushJobLimit {
            configuration.flushJobLimit = flushJobLimit
        }
        if let gracePeriod {
            configuration.gracePeriod = try DaemonConfiguration.duration(seconds: gracePeriod, of: "--grace-period")
        }
        if let logLevel {
            guard let level = Logger.Level(rawValue: logLevel) else {
                throw ValidationError("unknown log level \(logLevel)")
            }
            configuration.logLevel = level
        }
        if let keepDone {
            configuration.keepDone = try DaemonConfiguration.duration(text: keepDone, of: "--keep-done")
        }
        if let timeout {
            configuration.timeout = try DaemonConfiguration.duration(text: timeout, of: "--timeout")
        }
        if !allowedHost.isEmpty {
            configuration.allowedHosts = Set(allowedHost.map { $0.lowercased() })
        }
        if let otelEndpoint {
            guard let url = URL(string: otelEndpoint) else {
                throw ValidationError("--otel-endpoint must be an http or https URL such as http://127.0.0.1:4318")
            }
            configuration.otelEndpoint = url
        }
        for text in limit {
            let (scope, limit) = try LimitOption.parse(text)
            configuration.limits[scope] = limit
        }
        try configuration.validate()
        return configuration
    }
}
