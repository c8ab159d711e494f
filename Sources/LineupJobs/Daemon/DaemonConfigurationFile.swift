public import Foundation
public import Logging

/// The daemon's configuration file: a JSON object whose fields are all optional and override
/// the ``DaemonConfiguration`` they are applied to. Durations are in seconds; relative paths
/// resolve against the file's directory.
///
/// ```json
/// {"store": "state/store.sqlite", "spool": "spool", "input": "inbox", "output": "exports",
///  "concurrency": 2, "flushInterval": 5, "gracePeriod": 20, "maxAttempts": 3,
///  "baseDelay": 1, "maxDelay": 300, "poisonThreshold": 3, "logLevel": "info"}
/// ```
///
/// `lineupd` reads it at start-up and applies its command-line options on top; on SIGHUP the
/// daemon reads it again and takes the reloadable settings (see ``DaemonConfiguration``).
public struct DaemonConfigurationFile: Sendable, Hashable, Codable {
    public var store: String?
    public var spool: String?
    public var input: String?
    public var output: String?
    public var concurrency: Int?
    public var claimWindow: Int?
    public var flushInterval: Double?
    public var gracePeriod: Double?
    public var cancellationTimeout: Double?
    public var flushBacklogLimit: Int?
    public var flushFailureTimeout: Double?
    public var maxAttempts: Int?
    public var baseDelay: Double?
    public var maxDelay: Double?
    public var poisonThreshold: Int?
    public var dependencyWaitTimeout: Double?
    public var rescanInterval: Double?
    public var inotify: Bool?
    public var statusInterval: Double?
    public var logLevel: Logger.Level?

    public init() {}

    /// Reads a configuration file.
    ///
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` naming the file:
    ///   unreadable, not JSON, a field of the wrong type, an unknown log level, a negative or
    ///   non-finite duration.
    public init(contentsOf url: URL) throws(DaemonError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DaemonError(.invalidConfiguration, path: url.path, "cannot read the configuration file", underlying: error)
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw DaemonError(.invalidConfiguration, path: url.path, "not a valid configuration file: \(error)")
        }
        for (name, seconds) in [
            ("flushInterval", flushInterval), ("gracePeriod", gracePeriod), ("cancellationTimeout", cancellationTimeout),
            ("baseDelay", baseDelay), ("maxDelay", maxDelay), ("dependencyWaitTimeout", dependencyWaitTimeout),
            ("rescanInterval", rescanInterval), ("statusInterval", statusInterval),
            ("flushFailureTimeout", flushFailureTimeout),
        ] {
            if let seconds, !(seconds.isFinite && seconds >= 0 && seconds < 1e9) {
                throw DaemonError(.invalidConfiguration, path: url.path, "`\(name)` must be a number of seconds, 0 or more")
            }
        }
        if let maxAttempts, maxAttempts < 1 {
            throw DaemonError(.invalidConfiguration, path: url.path, "`maxAttempts` must be at least 1")
        }
    }

    /// `configuration` with every field this file sets; relative paths resolve against
    /// `directory` (the file's own directory).
    public func applied(to configuration: DaemonConfiguration, relativeTo directory: URL) -> DaemonConfiguration {
        func location(_ path: String?, _ current: URL) -> URL {
            guard let path else { return current }
            return path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appending(path: path)
        }
        func duration(_ seconds: Double?, _ current: Duration) -> Duration {
            seconds.map { .nanoseconds(Int64($0 * 1e9)) } ?? current
        }
        var result = configuration
        result.storeURL = location(store, result.storeURL)
        result.spoolURL = location(spool, result.spoolURL)
        result.inputDirectory = location(input, result.inputDirectory)
        result.outputDirectory = location(output, result.outputDirectory)
        result.maxConcurrentJobs = concurrency ?? result.maxConcurrentJobs
        result.claimWindow = claimWindow ?? result.claimWindow
        result.flushInterval = duration(flushInterval, result.flushInterval)
        result.gracePeriod = duration(gracePeriod, result.gracePeriod)
        result.cancellationTimeout = duration(cancellationTimeout, result.cancellationTimeout)
        result.flushBacklogLimit = flushBacklogLimit ?? result.flushBacklogLimit
        result.flushFailureTimeout = duration(flushFailureTimeout, result.flushFailureTimeout)
        result.retry.maxAttempts = maxAttempts ?? result.retry.maxAttempts
        result.retry.baseDelay = duration(baseDelay, result.retry.baseDelay)
        result.retry.maxDelay = duration(maxDelay, result.retry.maxDelay)
        result.maxInterruptions = poisonThreshold ?? result.maxInterruptions
        result.dependencyWaitTimeout = duration(dependencyWaitTimeout, result.dependencyWaitTimeout)
        result.rescanInterval = duration(rescanInterval, result.rescanInterval)
        result.usesInotify = inotify ?? result.usesInotify
        result.statusInterval = duration(statusInterval, result.statusInterval)
        result.logLevel = logLevel ?? result.logLevel
        return result
    }

    /// Reads the file at `url` and applies it to `configuration` (relative paths against the
    /// file's directory), remembering the file for reloads.
    public static func load(_ url: URL, over configuration: DaemonConfiguration) throws(DaemonError) -> DaemonConfiguration {
        var result = try DaemonConfigurationFile(contentsOf: url).applied(
            to: configuration, relativeTo: url.deletingLastPathComponent())
        result.configurationFile = url
        return result
    }
}
