import ArgumentParser
import Foundation
import LineupJobs
import LineupStore
import Logging

/// The daemon's command-line options.
struct DaemonOptions: ParsableArguments, Sendable {
    @Option(name: DaemonSetting.store.optionName, help: DaemonSetting.store.optionHelp())
    var store: String?
    @Option(name: DaemonSetting.database.optionName, help: DaemonSetting.database.optionHelp())
    var database: String?
    @Option(name: DaemonSetting.lease.optionName, help: DaemonSetting.lease.optionHelp())
    var lease: Double?
    @Option(
        name: DaemonSetting.listenDatabase.optionName,
        help: DaemonSetting.listenDatabase.optionHelp("polling finds jobs either way, later"))
    var listenDatabase: String?
    @Option(
        name: DaemonSetting.databaseConnections.optionName,
        help: DaemonSetting.databaseConnections.optionHelp(
            "4 (the store's writer, the main context's reader, key blocks, the listener), readers for the jobs at once and one more, and one or two for the jobs"))
    var databaseConnections: Int?
    @Option(name: DaemonSetting.spool.optionName, help: DaemonSetting.spool.optionHelp())
    var spool: String?
    @Option(name: DaemonSetting.input.optionName, help: DaemonSetting.input.optionHelp())
    var input: String?
    @Option(name: DaemonSetting.output.optionName, help: DaemonSetting.output.optionHelp())
    var output: String?
    @Option(help: "A JSON configuration file (keys: store, spool, input, output, concurrency, flushInterval, gracePeriod, logLevel, ...).")
    var config: String?
    @Option(name: DaemonSetting.concurrency.optionName, help: DaemonSetting.concurrency.optionHelp())
    var concurrency: Int?
    @Option(name: DaemonSetting.flushInterval.optionName, help: DaemonSetting.flushInterval.optionHelp())
    var flushInterval: Double?
    @Flag(name: DaemonSetting.flushWhenIdle.optionName, inversion: .prefixedNo, help: DaemonSetting.flushWhenIdle.optionHelp())
    var flushWhenIdle: Bool?
    @Option(name: DaemonSetting.flushRowLimit.optionName, help: DaemonSetting.flushRowLimit.optionHelp())
    var flushRowLimit: Int?
    @Option(name: DaemonSetting.flushJobLimit.optionName, help: DaemonSetting.flushJobLimit.optionHelp())
    var flushJobLimit: Int?
    @Option(name: DaemonSetting.gracePeriod.optionName, help: DaemonSetting.gracePeriod.optionHelp())
    var gracePeriod: Double?
    @Option(name: DaemonSetting.logLevel.optionName, help: DaemonSetting.logLevel.optionHelp())
    var logLevel: String?
    @Option(name: DaemonSetting.keepDone.optionName, help: DaemonSetting.keepDone.optionHelp("e.g. 7d or 12h"))
    var keepDone: String?
    @Option(name: DaemonSetting.timeout.optionName, help: DaemonSetting.timeout.optionHelp("e.g. 30m"))
    var timeout: String?
    @Option(help: "Serve the dashboard, its API, /metrics (Prometheus) and /health at HOST:PORT, e.g. 127.0.0.1:9464 (default: off).")
    var httpAddress: String?
    @Option(help: "A file whose first line is the token the dashboard's actions (retry, discard, flush) need; without it they are off.")
    var httpTokenFile: String?
    @Option(
        name: DaemonSetting.allowedHosts.optionName,
        help: DaemonSetting.allowedHosts.optionHelp("one host an option, repeated for several; replaces the configuration file's allowedHosts"))
    var allowedHost: [String] = []
    @Option(
        name: DaemonSetting.otelEndpoint.optionName,
        help: DaemonSetting.otelEndpoint.optionHelp(
            "spans go to its /v1/traces, and job files' traceparent makes them children of the enqueuer's span"))
    var otelEndpoint: String?
    @Option(help: "text, or json: one JSON object per line, for journald and log shippers.")
    var logFormat: LogFormat = .text
    @Option(name: DaemonSetting.limits.optionName, help: DaemonSetting.limits.optionHelp(LimitOption.usage))
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
