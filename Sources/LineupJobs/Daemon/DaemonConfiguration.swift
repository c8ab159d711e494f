public import Foundation
public import LineupSpool
import LineupStore
public import Logging

/// What a ``JobDaemon`` runs with. Only the four locations are required; everything else has
/// the default of DESIGN §3.
///
/// ```swift
/// var configuration = DaemonConfiguration(
///     storeURL: state.appending(path: "store.sqlite"), spoolURL: state.appending(path: "spool"),
///     inputDirectory: inbox, outputDirectory: exports)
/// configuration.flushInterval = .seconds(2)
/// ```
///
/// ``DaemonSetting/all`` describes each setting: its key in the configuration file, its
/// `lineupd` option, its default, and whether it can change while the daemon runs
/// (``JobDaemon/reload()``) or needs a restart.
public struct DaemonConfiguration: Sendable, Hashable {
    /// The SQLite store (its `-wal` and `-shm` files lie beside it). Not used when
    /// ``databaseURL`` is set.
    public var storeURL: URL
    /// A PostgreSQL database (`postgres://user@host:port/database`) that holds the store *and*
    /// the jobs, shared by every daemon pointed at it (see LineupPostgres's `JobDatabase`); the spool stays this
    /// host's intake: what arrives in its `new/` moves into the database. nil (the default): the
    /// store is ``storeURL`` and the jobs are the spool's.
    public var databaseURL: URL?
    /// With ``databaseURL``: the database to listen on for new jobs (`LISTEN`), when that is not
    /// ``databaseURL`` itself: a direct URL to the server, past a pooler in transaction mode
    /// (PgBouncer's `pool_mode = transaction`), which hands each transaction whichever server
    /// connection is free, so that a `LISTEN` made through it hears nothing. nil (the default):
    /// the daemon listens on ``databaseURL``. Either way it also polls every ``rescanInterval``
    /// (or a third of ``lease``, if sooner), so jobs are found without notifications too, only
    /// later; a daemon whose notifications do not arrive says so in its log.
    public var listenDatabaseURL: URL?
    /// With ``databaseURL``: how long this daemon's claims outlive its last heartbeat. When a
    /// daemon dies, its jobs are taken back by the others that long after (plus a poll). Default 30 s.
    public var lease: Duration
    /// With ``databaseURL``: the most connections this daemon opens to the database, its
    /// listener's included (see ``DatabaseConnectionBudget``): the store's writer, the main
    /// context's reader, the key blocks' connection and the listener, then the task contexts'
    /// readers and the jobs' connections out of what is left. At least
    /// ``DatabaseConnectionBudget/minimum(forConcurrentTasks:)`` (``totalConcurrency`` + 6).
    /// nil (the default): `max(5, totalConcurrency + 1) + 6`.
    public var databaseConnections: Int?
    /// The spool's root directory (`tmp/`, `new/`, `active/`, `done/`, `failed/`, `status.json`).
    public var spoolURL: URL
    /// The directory relative input paths of job files resolve against.
    public var inputDirectory: URL
    /// The directory relative output paths of job files resolve against.
    public var outputDirectory: URL
    /// The configuration file this came from, re-read on SIGHUP; nil when there is none.
    public var configurationFile: URL?

    /// The queue's `maxConcurrentOperationCount`. Default: the number of active cores.
    public var maxConcurrentJobs: Int
    /// How many claimed jobs may wait in the queues or run at once (jobs parked waiting for an
    /// unknown dependency, or for a retry, do not count). nil: a window that follows the jobs
    /// (``claimWindowRange``): 4 × ``totalConcurrency``, at least 8, and on a database wider
    /// while jobs take less than a claim's round trip, so that the jobs in hand outlast it.
    public var claimWindow: Int?
    /// The time between flushes. Default 5 s.
    public var flushInterval: Duration
    /// Whether the daemon also flushes as soon as it runs out of work (nothing queued or running
    /// and jobs waiting for their acknowledgement), rather than at the next interval: under load
    /// jobs are still acknowledged in groups, one flush an interval, and when the queue drains
    /// the last of them are acknowledged at once instead of up to a flush interval later.
    /// Default true.
    public var flushesWhenIdle: Bool
    /// The daemon also flushes as soon as the main context holds more than this many unsaved
    /// rows (saved into it by jobs, finished or still running), so that a large import reaches
    /// the disk while it runs and the main context's memory stays bounded; 0 turns it off.
    /// Default ``defaultFlushRowLimit``.
    public var flushRowLimit: Int
    /// The daemon also flushes as soon as this many finished jobs wait for their
    /// acknowledgement and no flush is under way, so that under a steady backlog a group is
    /// filed while the next one runs, rather than all of them at the interval; 0 turns it off.
    /// Default ``defaultFlushJobLimit``.
    public var flushJobLimit: Int
    /// How long running jobs may take to finish at shutdown before they are cancelled.
    /// Default 20 s (below systemd's 90 s stop timeout).
    public var gracePeriod: Duration
    /// How long cancelled jobs may take to stop after the grace period before the daemon gives
    /// up on them: it then stops without closing the store, leaves their files in `active/`
    /// and ``JobDaemon/run()`` throws ``DaemonError/Code/jobsDidNotStop``. Default 5 s.
    public var cancellationTimeout: Duration
    /// While acknowledgements fail (a flush, or the filing of what it carried, fails: a full
    /// disk), claiming stops once this many finished jobs wait for one, so that the main context
    /// does not grow without bound; it resumes when they go through again. Default 100.
    public var flushBacklogLimit: Int
    /// How long acknowledgements may go on failing (see ``flushBacklogLimit``) before the daemon
    /// stops and ``JobDaemon/run()`` throws ``DaemonError/Code/flushesFailing``, so that its
    /// supervisor can act; every job not acknowledged is left for the next start. Default 300 s.
    public var flushFailureTimeout: Duration
    /// Attempts and backoff for failed jobs; a job file's `maxAttempts` and `baseDelay`
    /// override them for that job.
    public var retry: RetryPolicy
    /// The poison threshold: a job that was running during this many daemon stops (crashes)
    /// goes to `failed/` instead of running again. Default 3.
    public var maxInterruptions: Int
    /// How long a job whose `after` names an id never seen waits for a job with that id to
    /// be claimed before it fails. Default 60 s.
    public var dependencyWaitTimeout: Duration
    /// The time between rescans of `new/` (inotify is only a hint). Default 1 s.
    public var rescanInterval: Duration
    /// Whether to watch `new/` with inotify (on top of rescans).
    public var usesInotify: Bool
    /// The time between rewrites of `status.json` (it is also written after every flush).
    /// Default 1 s.
    public var statusInterval: Duration
    /// What the spool fsyncs.
    public var spoolDurability: SpoolDirectory.Durability
    /// The level of the daemon's and the jobs' log lines.
    public var logLevel: Logger.Level
    /// How long jobs stay in `done/` (with their reports) before the daemon removes them; nil
    /// keeps them forever. A done job that a queued or running job waits for is kept (see
    /// `SpoolDirectory.pruneDone(finishedBefore:)`). Default nil.
    public var keepDone: Duration?
    /// How long one attempt of a job may run, for kinds without a timeout of their own in
    /// ``timeoutByKind``; a job file's `timeout` overrides both. An attempt that overruns is
    /// cancelled and fails as timed out (retried as any failed attempt is); one that does not
    /// stop within ``cancellationTimeout`` of that fails for good, and what it does after is
    /// discarded. nil: no limit. Default nil.
    public var timeout: Duration?
    /// Timeouts by job kind (see ``timeout``).
    public var timeoutByKind: [String: Duration]
    /// Named queues, each with the kinds it runs and its own concurrency (one import at a time,
    /// four exports); a kind in none runs in the default queue, ``maxConcurrentJobs`` wide. A
    /// job whose file names one of these queues (`queue`) runs in it whatever its kind
    /// (``routing``, the one rule the runner, the claim, the pauses and limits and the browser
    /// use).
    /// Jobs are still claimed in order, within one ``claimWindow``: a queue's backlog waits in
    /// `active/` and counts against the window. Default none. Needs a restart to change.
    public var queues: [String: NamedQueue]
    /// Recurring jobs, enqueued by a ``CronScheduler`` each time their schedule fires. Default
    /// none.
    public var cron: [CronJob]
    /// Host names that jobs which fetch over the network (`fetch-buoy`) may reach, exactly
    /// (no wildcard, no suffix match; compared without regard to case), redirect targets
    /// included. Default none: such jobs fail until the configuration names their hosts.
    public var allowedHosts: Set<String>
    /// Where an OpenTelemetry collector takes OTLP over HTTP (`http://127.0.0.1:4318`; spans go
    /// to its `/v1/traces`): `lineupd` then exports a span per attempt and per flush. Default
    /// nil: no tracer is bootstrapped, and the runner makes no span. Needs a restart to change.
    public var otelEndpoint: URL?
    /// Limits on the jobs of a kind or a named queue (running at once, claimed per period), by
    /// the scope they apply to. A job under a kind's limit and its queue's keeps to both.
    /// Default none.
    public var limits: [JobScope: JobLimit]

    /// A named queue of ``queues``.
    public struct NamedQueue: Sendable, Hashable {
        /// The job kinds that run in this queue.
        public var kinds: Set<String>
        /// How many of its jobs run at once.
        public var concurrency: Int

        /// Makes a queue that runs `kinds`, `concurrency` of them at once.
        public init(kinds: Set<String>, concurrency: Int) {
            self.kinds = kinds
            self.concurrency = concurrency
        }
    }

    /// The name of the queue that runs the jobs of `kind` that name no queue; nil for the
    /// default queue (``routing``'s rule for such a job).
    public func queueName(forKind kind: String) -> String? {
        routing.queue(forJobNamed: nil, kind: kind)
    }

    /// How many jobs may run at once in all the queues together.
    public var totalConcurrency: Int {
        queues.values.reduce(maxConcurrentJobs) { $0 + $1.concurrency }
    }

    /// Makes a configuration from the four locations, everything else at its default.
    public init(storeURL: URL, spoolURL: URL, inputDirectory: URL, outputDirectory: URL) {
        self.storeURL = storeURL
        self.spoolURL = spoolURL
        self.inputDirectory = inputDirectory
        self.outputDirectory = outputDirectory
        self.configurationFile = nil
        self.maxConcurrentJobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.claimWindow = nil
        self.flushInterval = .seconds(5)
        self.flushesWhenIdle = true
        self.flushRowLimit = Self.defaultFlushRowLimit
        self.flushJobLimit = Self.defaultFlushJobLimit
        self.gracePeriod = .seconds(20)
        self.cancellationTimeout = .seconds(5)
        self.flushBacklogLimit = 100
        self.flushFailureTimeout = .seconds(300)
        self.retry = RetryPolicy()
        self.maxInterruptions = SpoolDirectory.defaultMaxInterruptions
        self.dependencyWaitTimeout = .seconds(60)
        self.rescanInterval = .seconds(1)
        self.lease = .seconds(30)
        self.usesInotify = true
        self.statusInterval = .seconds(1)
        self.spoolDurability = .fsync
        self.logLevel = .info
        self.keepDone = nil
        self.timeout = nil
        self.timeoutByKind = [:]
        self.queues = [:]
        self.cron = []
        self.allowedHosts = []
        self.otelEndpoint = nil
        self.limits = [:]
        self.listenDatabaseURL = nil
        self.databaseConnections = nil
    }

    /// The default of ``flushRowLimit``: a few chunks of an import (10,000 rows each), a few
    /// tens of megabytes of changes.
    public static let defaultFlushRowLimit = 25_000

    /// The default of ``flushJobLimit``: a group that the committer files in some tens of
    /// milliseconds (two renames a job), large enough that a flush a group costs little.
    public static let defaultFlushJobLimit = 1_000

    /// The claim window in effect: the configured one, or else the least of ``claimWindowRange``.
    public var effectiveClaimWindow: Int {
        max(1, claimWindow ?? max(8, 4 * totalConcurrency))
    }

    /// The windows the runner may hold: the configured one alone, or else from
    /// ``effectiveClaimWindow`` (what slow jobs get) to 16 times that, which short jobs reach
    /// where a claim is a round trip to a database.
    public var claimWindowRange: ClosedRange<Int> {
        let least = effectiveClaimWindow
        return claimWindow == nil ? least...(least * ClaimWindow.widening) : least...least
    }

    /// How the daemon shares out its connections to ``databaseURL`` (``databaseConnections``).
    public var databaseConnectionBudget: DatabaseConnectionBudget {
        DatabaseConnectionBudget(forConcurrentTasks: totalConcurrency, limit: databaseConnections)
    }

    /// Where the daemon's jobs may read and write.
    public var pathPolicy: PathPolicy {
        PathPolicy(inputDirectory: inputDirectory, outputDirectory: outputDirectory)
    }

    /// This configuration with the settings that a reload applies taken from `other` (those of
    /// ``DaemonSetting/all`` whose ``DaemonSetting/reload`` is ``DaemonSetting/Reload/applies``).
    public func reloading(from other: DaemonConfiguration) -> DaemonConfiguration {
        DaemonSetting.all.filter { $0.reload == .applies }.reduce(into: self) { copy, setting in
            setting.copy(from: other, into: &copy)
        }
    }

    /// The names (``DaemonSetting/reportedName``) of the settings that differ in `other` but
    /// that only a restart changes, in the order of ``DaemonSetting/all``: the locations, the
    /// watcher, the spool's durability, the poison threshold, the named queues. A location is
    /// compared by its standardized path.
    public func settingsNeedingRestart(toBecome other: DaemonConfiguration) -> [String] {
        DaemonSetting.all.filter { $0.reload == .needsRestart && $0.differs(self, other) }.map(\.reportedName)
    }

    /// The most ``databaseConnections`` may be: more than any server takes from one client.
    public static let maximumDatabaseConnections = 10_000

    /// The longest any duration setting may be: a year. Longer is a typo (or `inf`), and
    /// clocks and dispatch times overflow not far beyond.
    public static let maximumSeconds: Double = 31_536_000

    /// A setting given in seconds (a command-line option, a key of the configuration file) as a
    /// `Duration`. This is where a number from outside becomes a duration, so it refuses
    /// anything that would not convert: NaN, infinities, negative numbers, more than
    /// ``maximumSeconds``. Whether zero makes sense is ``validate()``'s to say.
    ///
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` naming the setting.
    public static func duration(seconds: Double, of setting: String, in file: URL? = nil) throws(DaemonError) -> Duration {
        guard seconds.isFinite, seconds >= 0, seconds <= maximumSeconds else {
            throw DaemonError(
                .invalidConfiguration, path: file?.path,
                "`\(setting)` must be a number of seconds, 0 or more, and at most \(Int(maximumSeconds)) (a year); found \(seconds)")
        }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// A duration given as text: seconds (`90`), or a number with a unit: `90s`, `10m`, `12h`,
    /// `7d`. Checked as ``duration(seconds:of:in:)`` checks seconds.
    public static func duration(text: String, of setting: String) throws(DaemonError) -> Duration {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let multiplier = units[last] {
            number = number.dropLast()
            unit = multiplier
        }
        guard let value = Double(number) else {
            throw DaemonError(
                .invalidConfiguration, path: nil, "`\(setting)` must be a duration such as 90s, 10m, 12h or 7d; found \(text)")
        }
        return try duration(seconds: value * unit, of: setting)
    }

    /// Checks every setting against its range; out of range, none has a meaningful behaviour.
    ///
    /// | setting | range |
    /// |---|---|
    /// | `concurrency` | 1…1,024 |
    /// | `claimWindow` | 1…1,000,000 |
    /// | `databaseConnections` | `totalConcurrency` + 6…10,000, with `database` |
    /// | `maxAttempts`, `poisonThreshold` | 1…1,000 |
    /// | `flushBacklogLimit` | 1…10,000,000 |
    /// | `flushInterval`, `rescanInterval`, `statusInterval`, `flushFailureTimeout`, `timeout`, `timeoutByKind` | more than 0 s, at most a year |
    /// | `gracePeriod`, `cancellationTimeout`, `dependencyWaitTimeout`, `baseDelay`, `maxDelay` | 0 s to a year |
    ///
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` naming the setting.
    public func validate() throws(DaemonError) {
        func invalid(_ message: String) -> DaemonError {
            DaemonError(.invalidConfiguration, path: configurationFile?.path, message)
        }
        let counts: [(String, Int?, ClosedRange<Int>)] = [
            ("concurrency", maxConcurrentJobs, 1...1_024), ("claimWindow", claimWindow, 1...1_000_000),
            ("maxAttempts", retry.maxAttempts, 1...1_000), ("poisonThreshold", maxInterruptions, 1...1_000),
            ("flushBacklogLimit", flushBacklogLimit, 1...10_000_000), ("flushRowLimit", flushRowLimit, 0...100_000_000),
            ("flushJobLimit", flushJobLimit, 0...10_000_000),
        ]
        for (name, value, range) in counts {
            if let value, !range.contains(value) {
                throw invalid("`\(name)` must be from \(range.lowerBound) to \(range.upperBound); found \(value)")
            }
        }
        let maximum = Duration.nanoseconds(Int64(Self.maximumSeconds * 1e9))
        let durations: [(String, Duration, zeroAllowed: Bool)] = [
            ("flushInterval", flushInterval, false), ("rescanInterval", rescanInterval, false),
            ("statusInterval", statusInterval, false), ("flushFailureTimeout", flushFailureTimeout, false),
            ("gracePeriod", gracePeriod, true), ("cancellationTimeout", cancellationTimeout, true),
            ("dependencyWaitTimeout", dependencyWaitTimeout, true), ("baseDelay", retry.baseDelay, true),
            ("maxDelay", retry.maxDelay, true), ("lease", lease, false),
        ]
        if let databaseURL, databaseURL.scheme != "postgres", databaseURL.scheme != "postgresql" {
            throw invalid("`database` must be a PostgreSQL URL (postgres://user@host:port/database); found \(Self.withoutPassword(databaseURL))")
        }
        if let listenDatabaseURL {
            guard listenDatabaseURL.scheme == "postgres" || listenDatabaseURL.scheme == "postgresql" else {
                throw invalid(
                    "`listenDatabase` must be a PostgreSQL URL (postgres://user@host:port/database); found \(Self.withoutPassword(listenDatabaseURL))")
            }
            guard databaseURL != nil else {
                throw invalid("`listenDatabase` needs `database`: it is where the daemon listens for the jobs of that database")
            }
        }
        if let databaseConnections {
            guard databaseURL != nil else {
                throw invalid("`databaseConnections` needs `database`: it bounds the connections the daemon opens to it")
            }
            let minimum = DatabaseConnectionBudget.minimum(forConcurrentTasks: totalConcurrency)
            guard (minimum...Self.maximumDatabaseConnections).contains(databaseConnections) else {
                throw invalid(
                    "`databaseConnections` must be from \(minimum) to \(Self.maximumDatabaseConnections); found \(databaseConnections) "
                        + "(the store's writer, the main context's reader, the key blocks' and the listener's, one reader per job "
                        + "at once and one more: \(totalConcurrency + 1), and one for the jobs)")
            }
        }
        var queuesByKind: [String: String] = [:]
        for (name, queue) in queues.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !queue.kinds.isEmpty, !queue.kinds.contains("") else {
                throw invalid("`queues.\(name)` must have a name and list one job kind or more")
            }
            guard (1...1_024).contains(queue.concurrency) else {
                throw invalid("`queues.\(name).concurrency` must be from 1 to 1024; found \(queue.concurrency)")
            }
            for kind in queue.kinds.sorted() {
                if let other = queuesByKind.updateValue(name, forKey: kind) {
                    throw invalid("job kind `\(kind)` is in two queues, `\(other)` and `\(name)`")
                }
            }
        }
        for (scope, limit) in limits.sorted(by: { $0.key < $1.key }) {
            if scope.level == .queue, queues[scope.name] == nil {
                throw invalid("`limits.\(scope)` names no queue of `queues`")
            }
            if limit.maxRunning == nil, limit.rate == nil {
                throw invalid("`limits.\(scope)` must set `running`, or `rate` and `per`")
            }
            if let running = limit.maxRunning, !(1...1_000_000).contains(running) {
                throw invalid("`limits.\(scope).running` must be from 1 to 1000000; found \(running)")
            }
            if let rate = limit.rate {
                guard (1...1_000_000).contains(rate.jobs) else {
                    throw invalid("`limits.\(scope).rate` must be from 1 to 1000000; found \(rate.jobs)")
                }
                guard rate.period > .zero, rate.period <= maximum else {
                    throw invalid("`limits.\(scope).per` must be more than 0 s and at most \(Int(Self.maximumSeconds)) s (a year)")
                }
            }
        }
        for host in allowedHosts.sorted() where !Self.isHostName(host) {
            throw invalid("`allowedHosts` must list host names such as www.ndbc.noaa.gov (no scheme, port, path or wildcard); found \(host)")
        }
        if let otelEndpoint, !Self.isOTLPEndpoint(otelEndpoint) {
            throw invalid(
                "`otelEndpoint` must be an http or https URL of a host, such as http://127.0.0.1:4318, with no query; found \(otelEndpoint.absoluteString)")
        }
        var cronNames: Set<String> = []
        for entry in cron where !cronNames.insert(entry.name).inserted {
            throw invalid("two cron jobs are named `\(entry.name)`")
        }
        let timeouts = [("timeout", timeout)] + timeoutByKind.sorted { $0.key < $1.key }.map { ("timeoutByKind.\($0.key)", $0.value) }
        for case let (name, duration?) in timeouts where duration <= .zero || duration > maximum {
            throw invalid(
                "`\(name)` must be more than 0 s and at most \(Int(Self.maximumSeconds)) s (a year); found \(Self.seconds(duration)) s")
        }
        if let keepDone, keepDone < .seconds(1) {
            throw invalid("`keepDone` must be at least 1 s; found \(Self.seconds(keepDone)) s")
        }
        for (name, duration, zeroAllowed) in durations {
            let inRange = zeroAllowed ? duration >= .zero : duration > .zero
            guard inRange, duration <= maximum else {
                throw invalid(
                    "`\(name)` must be \(zeroAllowed ? "0 s or more" : "more than 0 s") and at most \(Int(Self.maximumSeconds)) s (a year); "
                        + "found \(Self.seconds(duration)) s")
            }
        }
    }

    /// Whether `text` is a bare host name or IP address: what a URL's host is, without a scheme,
    /// a port, a path, a user or a wildcard.
    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// The database, or the store file, for messages: a URL is shown without its password.
    public var storeLocation: String {
        databaseURL.map(Self.withoutPassword) ?? storeURL.path
    }

    /// The URL without the password of its user part or of its query (`?password=`).
    static func withoutPassword(_ url: URL) -> String {
        PostgresConnectionSettings.redactedLocation(of: url.absoluteString)
    }

    /// One line for the start-up log.
    public var summary: String {
        let location: String =
            if let databaseURL {
                "database=\(Self.withoutPassword(databaseURL)) lease=\(Self.seconds(lease))s "
                    + "databaseConnections=\(databaseConnectionBudget.total) "
            } else {
                "store=\(storeURL.path) "
            }
        return location
            + (listenDatabaseURL.map { "listenDatabase=\(Self.withoutPassword($0)) " } ?? "")
            + "spool=\(spoolURL.path) input=\(inputDirectory.path) "
            + "output=\(outputDirectory.path) concurrency=\(maxConcurrentJobs) "
            + "claimWindow=\(claimWindow.map(String.init) ?? "\(claimWindowRange.lowerBound)-\(claimWindowRange.upperBound)") flushInterval=\(Self.seconds(flushInterval))s "
            + "gracePeriod=\(Self.seconds(gracePeriod))s maxAttempts=\(retry.maxAttempts) "
            + "baseDelay=\(Self.seconds(retry.baseDelay))s maxDelay=\(Self.seconds(retry.maxDelay))s "
            + "poisonThreshold=\(maxInterruptions) rescanInterval=\(Self.seconds(rescanInterval))s "
            + "inotify=\(usesInotify) flushBacklogLimit=\(flushBacklogLimit) "
            + "flushFailureTimeout=\(Self.seconds(flushFailureTimeout))s logLevel=\(logLevel)"
            + (keepDone.map { " keepDone=\(Self.seconds($0))s" } ?? "")
            + (timeout.map { " timeout=\(Self.seconds($0))s" } ?? "")
            + timeoutByKind.sorted { $0.key < $1.key }.map { " timeout[\($0.key)]=\(Self.seconds($0.value))s" }.joined()
            + cron.map { " cron[\($0.name)]=\"\($0.schedule)\"" }.joined()
            + (allowedHosts.isEmpty ? "" : " allowedHosts=\(allowedHosts.sorted().joined(separator: ","))")
            + queues.sorted { $0.key < $1.key }.map { " queue[\($0.key)]=\($0.value.concurrency):\($0.value.kinds.sorted().joined(separator: ","))" }.joined()
            + (configurationFile.map { " configurationFile=\($0.path)" } ?? "")
    }

    /// An OTLP/HTTP base URL: http or https, a host, no query or fragment (a path is a prefix).
    static func isOTLPEndpoint(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return url.host?.isEmpty == false && url.query == nil && url.fragment == nil && url.user == nil
    }

    package static func seconds(_ duration: Duration) -> Double {
        duration / .seconds(1)
    }
}
