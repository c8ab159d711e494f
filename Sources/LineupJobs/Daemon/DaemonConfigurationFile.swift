public import Foundation
public import LineupSpool
import LineupStore
public import Logging

/// The daemon's configuration file: a JSON object whose fields are all optional and override
/// the ``DaemonConfiguration`` they are applied to. Durations are in seconds; relative paths
/// resolve against the file's directory.
///
/// ```json
/// {"store": "state/store.sqlite", "spool": "spool", "input": "inbox", "output": "exports",
///  "concurrency": 2, "flushInterval": 5, "gracePeriod": 20, "maxAttempts": 3,
///  "baseDelay": 1, "maxDelay": 300, "poisonThreshold": 3, "logLevel": "info",
///  "timeout": 3600, "timeoutByKind": {"import-buoy": 600},
///  "queues": {"imports": {"concurrency": 1, "kinds": ["import-buoy", "import-coredata"]}},
///  "allowedHosts": ["www.ndbc.noaa.gov"],
///  "cron": [{"name": "nightly-export", "schedule": "0 3 * * *",
///            "job": {"kind": "export-csv", "entity": "JournalEntry", "output": "nightly.csv"}}]}
/// ```
///
/// `lineupd` reads it at start-up and applies its command-line options on top; on SIGHUP the
/// daemon reads it again and takes the settings a reload applies (see ``DaemonSetting``).
public struct DaemonConfigurationFile: Sendable, Hashable, Codable {
    /// The SQLite store's path (``DaemonConfiguration/storeURL``).
    public var store: String?
    /// A PostgreSQL URL: the store and the jobs in that database (``DaemonConfiguration/databaseURL``).
    public var database: String?
    /// A PostgreSQL URL to listen on for new jobs, past a pooler in transaction mode
    /// (``DaemonConfiguration/listenDatabaseURL``).
    public var listenDatabase: String?
    /// The most connections the daemon opens to `database`, its listener's included
    /// (``DaemonConfiguration/databaseConnections``).
    public var databaseConnections: Int?
    /// Seconds a claim outlives its daemon's last heartbeat (``DaemonConfiguration/lease``).
    public var lease: Double?
    /// The spool's root directory (``DaemonConfiguration/spoolURL``).
    public var spool: String?
    /// The directory relative input paths of job files resolve against
    /// (``DaemonConfiguration/inputDirectory``).
    public var input: String?
    /// The directory relative output paths of job files resolve against
    /// (``DaemonConfiguration/outputDirectory``).
    public var output: String?
    /// The default queue's width (``DaemonConfiguration/maxConcurrentJobs``).
    public var concurrency: Int?
    /// How many claimed jobs may wait or run at once (``DaemonConfiguration/claimWindow``).
    public var claimWindow: Int?
    /// Seconds between flushes (``DaemonConfiguration/flushInterval``).
    public var flushInterval: Double?
    /// Whether to flush as soon as the daemon runs out of work
    /// (``DaemonConfiguration/flushesWhenIdle``).
    public var flushWhenIdle: Bool?
    /// Unsaved rows in the main context that trigger a flush; 0 turns it off
    /// (``DaemonConfiguration/flushRowLimit``).
    public var flushRowLimit: Int?
    /// Finished jobs awaiting acknowledgement that trigger a flush; 0 turns it off
    /// (``DaemonConfiguration/flushJobLimit``).
    public var flushJobLimit: Int?
    /// Seconds running jobs get to finish at shutdown (``DaemonConfiguration/gracePeriod``).
    public var gracePeriod: Double?
    /// Seconds cancelled jobs get to stop after the grace period
    /// (``DaemonConfiguration/cancellationTimeout``).
    public var cancellationTimeout: Double?
    /// Finished jobs awaiting acknowledgement at which claiming stops while flushes fail
    /// (``DaemonConfiguration/flushBacklogLimit``).
    public var flushBacklogLimit: Int?
    /// Seconds flushes may go on failing before the daemon stops
    /// (``DaemonConfiguration/flushFailureTimeout``).
    public var flushFailureTimeout: Double?
    /// Attempts a job gets, at least 1 (``RetryPolicy/maxAttempts`` of
    /// ``DaemonConfiguration/retry``).
    public var maxAttempts: Int?
    /// Seconds of backoff before the first retry (``RetryPolicy/baseDelay``).
    public var baseDelay: Double?
    /// The longest backoff between retries, in seconds (``RetryPolicy/maxDelay``).
    public var maxDelay: Double?
    /// The poison threshold: daemon stops during a job after which it fails rather than runs again
    /// (``DaemonConfiguration/maxInterruptions``).
    public var poisonThreshold: Int?
    /// Seconds a job waits for an unknown dependency
    /// (``DaemonConfiguration/dependencyWaitTimeout``).
    public var dependencyWaitTimeout: Double?
    /// Seconds between rescans of `new/` (``DaemonConfiguration/rescanInterval``).
    public var rescanInterval: Double?
    /// Whether to watch `new/` with inotify (``DaemonConfiguration/usesInotify``).
    public var inotify: Bool?
    /// Seconds between rewrites of `status.json` (``DaemonConfiguration/statusInterval``).
    public var statusInterval: Double?
    /// The log level, by name: `"debug"`, `"info"`, … (``DaemonConfiguration/logLevel``).
    public var logLevel: Logger.Level?
    /// Seconds done jobs are kept (``DaemonConfiguration/keepDone``); absent keeps the
    /// configuration's.
    public var keepDone: Double?
    /// Seconds one attempt may run (``DaemonConfiguration/timeout``).
    public var timeout: Double?
    /// Seconds one attempt may run, by job kind; replaces the whole table
    /// (``DaemonConfiguration/timeoutByKind``).
    public var timeoutByKind: [String: Double]?
    /// Named queues by name; replaces every queue (``DaemonConfiguration/queues``).
    public var queues: [String: Queue]?
    /// Recurring jobs; replaces every one (``DaemonConfiguration/cron``).
    public var cron: [Cron]?
    /// Host names network jobs may reach; replaces the list (``DaemonConfiguration/allowedHosts``).
    public var allowedHosts: [String]?
    /// The OTLP/HTTP collector spans are exported to (``DaemonConfiguration/otelEndpoint``).
    public var otelEndpoint: String?
    /// Limits by `kind:NAME` or `queue:NAME`; replaces every limit (``DaemonConfiguration/limits``).
    public var limits: [String: Limit]?

    /// A limit (see ``JobLimit``): `{"running": 2}`, `{"rate": 10, "per": 60}`, or both.
    public struct Limit: Sendable, Hashable, Codable {
        /// How many of its jobs may run at once (``JobLimit/maxRunning``).
        public var running: Int?
        /// How many of its jobs may be claimed in `per` seconds (``JobLimit/rate``).
        public var rate: Int?
        /// The rate's period, in seconds.
        public var per: Double?

        public init(running: Int? = nil, rate: Int? = nil, per: Double? = nil) {
            self.running = running
            self.rate = rate
            self.per = per
        }
    }

    /// A recurring job (see ``CronJob``).
    public struct Cron: Sendable, Hashable, Codable {
        /// Names the entry: 1 to 100 letters, digits, `-` and `_` (``CronJob/name``).
        public var name: String
        /// When it fires, in cron syntax (`"0 3 * * *"`), parsed by ``CronSchedule``.
        public var schedule: String
        /// The job file enqueued each time it fires.
        public var job: JobFile
    }

    /// A named queue (see ``DaemonConfiguration/queues``).
    public struct Queue: Sendable, Hashable, Codable {
        /// How many of its jobs run at once.
        public var concurrency: Int
        /// The job kinds it runs.
        public var kinds: [String]
    }

    /// Makes a file that sets nothing: applied, it leaves a configuration as it was.
    public init() {}

    /// Reads a configuration file.
    ///
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` naming the file and
    ///   the key: unreadable, not a JSON object, an unknown key (a misspelt one would otherwise
    ///   be ignored in silence), a value of the wrong type, an unknown log level, a duration that
    ///   is not a number of seconds from 0 to a year.
    public init(contentsOf url: URL) throws(DaemonError) {
        func invalid(_ message: String) -> DaemonError {
            DaemonError(.invalidConfiguration, path: url.path, message)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DaemonError(.invalidConfiguration, path: url.path, "cannot read the configuration file", underlying: error)
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw invalid("not a valid configuration file: it must be a JSON object")
        }
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let key = CodingKeys(rawValue: name) else {
                let known = CodingKeys.allCases.map(\.rawValue).sorted().joined(separator: ", ")
                throw invalid("not a valid configuration file: unknown key `\(name)` (known keys: \(known))")
            }
            // Checked here rather than left to JSONDecoder, which takes null for absent and on
            // Linux calls a fraction where a whole number belongs "not valid JSON".
            guard key.kind.accepts(value) else {
                throw invalid("not a valid configuration file: `\(name)` must be \(key.kind); found \(Self.describe(json: value))")
            }
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw invalid("not a valid configuration file: `\(key)`: \(context.debugDescription)")
        } catch {
            throw invalid("not a valid configuration file: \(error)")
        }
        for (name, seconds) in durationsInSeconds {
            if let seconds {
                _ = try DaemonConfiguration.duration(seconds: seconds, of: name, in: url)
            }
        }
        if let maxAttempts, maxAttempts < 1 {
            throw invalid("`maxAttempts` must be at least 1")
        }
        for (name, limit) in (limits ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard JobScope(name) != nil else {
                throw invalid("`limits.\(name)`: a limit applies to `kind:NAME` or `queue:NAME`")
            }
            guard (limit.rate == nil) == (limit.per == nil) else {
                throw invalid("`limits.\(name)`: `rate` and `per` go together")
            }
            if let per = limit.per {
                _ = try DaemonConfiguration.duration(seconds: per, of: "limits.\(name).per", in: url)
            }
        }
        for entry in cron ?? [] {
            do {
                _ = try CronJob(name: entry.name, schedule: CronSchedule(entry.schedule), job: entry.job)
            } catch {
                throw invalid("`cron`: \(error.message)")
            }
        }
    }

    private var durationsInSeconds: [(String, Double?)] {
        [
            ("flushInterval", flushInterval), ("gracePeriod", gracePeriod), ("cancellationTimeout", cancellationTimeout),
            ("baseDelay", baseDelay), ("maxDelay", maxDelay), ("dependencyWaitTimeout", dependencyWaitTimeout),
            ("rescanInterval", rescanInterval), ("statusInterval", statusInterval),
            ("flushFailureTimeout", flushFailureTimeout), ("keepDone", keepDone), ("timeout", timeout), ("lease", lease),
        ] + (timeoutByKind ?? [:]).sorted { $0.key < $1.key }.map { ("timeoutByKind.\($0.key)", $0.value) }
    }

    /// The file's keys: a test holds them to the settings' file keys (``DaemonSetting/fileKey``).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case store, database, listenDatabase, databaseConnections, lease, spool, input, output, concurrency, claimWindow, flushInterval, flushWhenIdle, flushRowLimit, flushJobLimit,
            gracePeriod, cancellationTimeout,
            flushBacklogLimit, flushFailureTimeout, maxAttempts, baseDelay, maxDelay, poisonThreshold,
            dependencyWaitTimeout, rescanInterval, inotify, statusInterval, logLevel, keepDone, timeout, timeoutByKind, queues, cron,
            allowedHosts, limits, otelEndpoint

        fileprivate var kind: ValueKind {
            switch self {
            case .store, .database, .listenDatabase, .spool, .input, .output, .logLevel, .otelEndpoint: .string
            case .concurrency, .claimWindow, .databaseConnections, .flushRowLimit, .flushJobLimit, .flushBacklogLimit, .maxAttempts, .poisonThreshold:
                .wholeNumber
            case .flushInterval, .gracePeriod, .cancellationTimeout, .flushFailureTimeout, .baseDelay, .maxDelay,
                .dependencyWaitTimeout, .rescanInterval, .statusInterval, .keepDone, .timeout, .lease:
                .seconds
            case .timeoutByKind: .secondsByName
            case .queues: .queues
            case .limits: .limits
            case .cron: .cronJobs
            case .allowedHosts: .strings
            case .inotify, .flushWhenIdle: .boolean
            }
        }
    }

    /// The JSON type a key takes.
    fileprivate enum ValueKind: CustomStringConvertible {
        case string, strings, wholeNumber, seconds, secondsByName, queues, limits, cronJobs, boolean

        func accepts(_ value: Any) -> Bool {
            let number = value as? NSNumber
            let isBoolean = number.map { String(cString: $0.objCType) == "c" } ?? false
            switch self {
            case .string: return value is String
            case .strings: return (value as? [Any])?.allSatisfy { $0 is String } ?? false
            case .boolean: return isBoolean
            case .seconds: return number != nil && !isBoolean
            case .secondsByName:
                guard let object = value as? [String: Any] else { return false }
                return object.values.allSatisfy(ValueKind.seconds.accepts)
            case .cronJobs:
                guard let list = value as? [Any] else { return false }
                return list.allSatisfy { entry in
                    guard let entry = entry as? [String: Any], Set(entry.keys) == ["name", "schedule", "job"] else { return false }
                    return entry["name"] is String && entry["schedule"] is String && entry["job"] is [String: Any]
                }
            case .queues:
                guard let object = value as? [String: Any] else { return false }
                return object.values.allSatisfy { queue in
                    guard let queue = queue as? [String: Any], Set(queue.keys) == ["concurrency", "kinds"],
                        let kinds = queue["kinds"] as? [Any]
                    else { return false }
                    return ValueKind.wholeNumber.accepts(queue["concurrency"] as Any) && kinds.allSatisfy { $0 is String }
                }
            case .limits:
                guard let object = value as? [String: Any] else { return false }
                return object.values.allSatisfy { limit in
                    guard let limit = limit as? [String: Any], !limit.isEmpty, Set(limit.keys).isSubset(of: ["running", "rate", "per"])
                    else { return false }
                    return limit.allSatisfy { key, value in
                        key == "per" ? ValueKind.seconds.accepts(value) : ValueKind.wholeNumber.accepts(value)
                    }
                }
            case .wholeNumber:
                guard let number, !isBoolean else { return false }
                let double = number.doubleValue
                return double.rounded() == double && abs(double) <= Double(Int32.max)
            }
        }

        var description: String {
            switch self {
            case .string: "a string"
            case .strings: "a list of strings"
            case .wholeNumber: "a whole number"
            case .seconds: "a number (of seconds)"
            case .secondsByName: "an object of numbers (of seconds) by job kind"
            case .cronJobs: #"a list of recurring jobs such as [{"name": "nightly", "schedule": "0 3 * * *", "job": {"kind": "statistics"}}]"#
            case .queues: #"an object of queues such as {"imports": {"concurrency": 1, "kinds": ["import-buoy"]}}"#
            case .limits: #"an object of limits such as {"kind:import-buoy": {"running": 2, "rate": 10, "per": 60}}"#
            case .boolean: "true or false"
            }
        }
    }

    /// A JSON value's type, for messages (never the value itself).
    private static func describe(json value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        case let number as NSNumber where String(cString: number.objCType) == "c": "true or false"
        case let number as NSNumber: number.doubleValue.rounded() == number.doubleValue ? "the number \(number)" : "a fraction"
        default: "a value of another type"
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
        if let database {
            result.databaseURL = PostgresConnectionSettings.url(libpqURL: database) ?? URL(string: database) ?? URL(fileURLWithPath: database)
        }
        if let listenDatabase {
            result.listenDatabaseURL =
                PostgresConnectionSettings.url(libpqURL: listenDatabase) ?? URL(string: listenDatabase) ?? URL(fileURLWithPath: listenDatabase)
        }
        result.databaseConnections = databaseConnections ?? result.databaseConnections
        result.lease = duration(lease, result.lease)
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
        result.flushesWhenIdle = flushWhenIdle ?? result.flushesWhenIdle
        result.flushRowLimit = flushRowLimit ?? result.flushRowLimit
        result.flushJobLimit = flushJobLimit ?? result.flushJobLimit
        result.statusInterval = duration(statusInterval, result.statusInterval)
        result.logLevel = logLevel ?? result.logLevel
        result.keepDone = keepDone.map { .nanoseconds(Int64($0 * 1e9)) } ?? result.keepDone
        result.timeout = timeout.map { .nanoseconds(Int64($0 * 1e9)) } ?? result.timeout
        if let timeoutByKind {
            result.timeoutByKind = timeoutByKind.mapValues { .nanoseconds(Int64($0 * 1e9)) }
        }
        if let cron {
            // Checked when the file was read.
            result.cron = cron.compactMap { try? CronJob(name: $0.name, schedule: CronSchedule($0.schedule), job: $0.job) }
        }
        if let allowedHosts {
            result.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        }
        if let otelEndpoint {
            // An unparsable text stays visible, for validate() to name.
            result.otelEndpoint = URL(string: otelEndpoint) ?? URL(fileURLWithPath: otelEndpoint)
        }
        if let queues {
            result.queues = queues.mapValues { DaemonConfiguration.NamedQueue(kinds: Set($0.kinds), concurrency: $0.concurrency) }
        }
        if let limits {
            // Checked when the file was read.
            result.limits = Dictionary(
                uniqueKeysWithValues: limits.compactMap { name, limit -> (JobScope, JobLimit)? in
                    guard let scope = JobScope(name) else { return nil }
                    let rate = limit.rate.flatMap { jobs in limit.per.map { JobLimit.Rate(jobs: jobs, per: .nanoseconds(Int64($0 * 1e9))) } }
                    return (scope, JobLimit(maxRunning: limit.running, rate: rate))
                })
        }
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
