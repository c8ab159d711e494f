import Foundation
import LineupSpool

/// Every setting of ``DaemonConfiguration``, each described once.
extension DaemonSetting {
    /// Every setting, in the order of the table in <doc:OperatingTheDaemon> and of a reload's
    /// warning: where the daemon keeps its state, its queues, its flushes, its stops and
    /// retries, its watch over the spool, its logs, and its jobs' bounds.
    public static let all: [DaemonSetting] = [
        store, database, listenDatabase, lease, databaseConnections, spool, input, output,
        concurrency, claimWindow, flushInterval, flushWhenIdle, flushRowLimit, flushJobLimit,
        gracePeriod, cancellationTimeout, flushBacklogLimit, flushFailureTimeout,
        maxAttempts, baseDelay, maxDelay, dependencyWaitTimeout,
        rescanInterval, inotify, statusInterval, spoolDurability, poisonThreshold,
        logLevel, keepDone, timeout, timeoutByKind, queues, cron, allowedHosts, otelEndpoint, limits,
    ]

    // MARK: Where the daemon keeps its state

    /// ``DaemonConfiguration/storeURL``.
    public static let store = location(
        "storeURL", \.storeURL, fileKey: "store", flag: "store", default: "lineup.sqlite in lineupd's working directory",
        meaning: "The SQLite store, created on first run; not used with a database")
    /// ``DaemonConfiguration/databaseURL``.
    public static let database = DaemonSetting(
        "databaseURL", \.databaseURL, fileKey: "database", flag: "database", default: "none: the SQLite store and the spool's jobs",
        reload: .needsRestart,
        meaning: "A PostgreSQL database (postgres://user@host:port/db) for the store and the jobs, shared by every daemon "
            + "pointed at it; the spool becomes this host's intake")
    /// ``DaemonConfiguration/listenDatabaseURL``.
    public static let listenDatabase = DaemonSetting(
        "listenDatabaseURL", \.listenDatabaseURL, fileKey: "listenDatabase", flag: "listen-database",
        default: "the database itself", reload: .needsRestart,
        meaning: "With a database: a PostgreSQL URL direct to the server, to listen on for new jobs (LISTEN) when the "
            + "database goes through a pooler in transaction mode such as PgBouncer, where a LISTEN hears nothing")
    /// ``DaemonConfiguration/lease``.
    public static let lease = DaemonSetting(
        "lease", \.lease, fileKey: "lease", flag: "lease", default: "30 s", reload: .needsRestart,
        meaning: "With a database: seconds this daemon's claims outlive its last heartbeat, after which other daemons "
            + "take its jobs back")
    /// ``DaemonConfiguration/databaseConnections``.
    public static let databaseConnections = DaemonSetting(
        "databaseConnections", \.databaseConnections, fileKey: "databaseConnections", flag: "database-connections",
        default: "max(5, concurrency + 1) + 6", reload: .needsRestart,
        meaning: "With a database: the most connections this daemon opens to it, its listener's included; at least "
            + "concurrency + 6")
    /// ``DaemonConfiguration/spoolURL``.
    public static let spool = location(
        "spoolURL", \.spoolURL, fileKey: "spool", flag: "spool", default: "spool in lineupd's working directory",
        meaning: "The spool directory (tmp/ new/ active/ done/ failed/)")
    /// ``DaemonConfiguration/inputDirectory``.
    public static let input = location(
        "inputDirectory", \.inputDirectory, fileKey: "input", flag: "input", default: "lineupd's working directory",
        meaning: "The directory job files' relative input paths resolve against")
    /// ``DaemonConfiguration/outputDirectory``.
    public static let output = location(
        "outputDirectory", \.outputDirectory, fileKey: "output", flag: "output", default: "output in lineupd's working directory",
        meaning: "The directory job files' relative output paths resolve against, created when missing")

    // MARK: Its queues

    /// ``DaemonConfiguration/maxConcurrentJobs``.
    public static let concurrency = DaemonSetting(
        "maxConcurrentJobs", \.maxConcurrentJobs, fileKey: "concurrency", flag: "concurrency", default: "the number of cores",
        reload: .applies, meaning: "Jobs the default queue runs at once, 1 to 1024")
    /// ``DaemonConfiguration/claimWindow``.
    public static let claimWindow = DaemonSetting(
        "claimWindow", \.claimWindow, fileKey: "claimWindow",
        default: "4 × the total concurrency, at least 8; on a database wider while jobs are short", reload: .applies,
        meaning: "How many claimed jobs may wait in the queues or run at once, 1 to 1,000,000")

    // MARK: Its flushes

    /// ``DaemonConfiguration/flushInterval``.
    public static let flushInterval = DaemonSetting(
        "flushInterval", \.flushInterval, fileKey: "flushInterval", flag: "flush-interval", default: "5 s", reload: .applies,
        meaning: "Seconds between flushes, more than 0 and at most a year")
    /// ``DaemonConfiguration/flushesWhenIdle``.
    public static let flushWhenIdle = DaemonSetting(
        "flushesWhenIdle", \.flushesWhenIdle, fileKey: "flushWhenIdle", flag: "flush-when-idle", default: "on", reload: .applies,
        meaning: "Flush as soon as no job is queued or running, not only every flush interval")
    /// ``DaemonConfiguration/flushRowLimit``.
    public static let flushRowLimit = DaemonSetting(
        "flushRowLimit", \.flushRowLimit, fileKey: "flushRowLimit", flag: "flush-row-limit",
        default: "\(DaemonConfiguration.defaultFlushRowLimit)", reload: .applies,
        meaning: "Flush as soon as jobs have saved more than this many rows into the main context; 0 for never")
    /// ``DaemonConfiguration/flushJobLimit``.
    public static let flushJobLimit = DaemonSetting(
        "flushJobLimit", \.flushJobLimit, fileKey: "flushJobLimit", flag: "flush-job-limit",
        default: "\(DaemonConfiguration.defaultFlushJobLimit)", reload: .applies,
        meaning: "Flush as soon as this many finished jobs wait for their acknowledgement and no flush is under way; 0 for never")

    // MARK: Its stops and retries

    /// ``DaemonConfiguration/gracePeriod``.
    public static let gracePeriod = DaemonSetting(
        "gracePeriod", \.gracePeriod, fileKey: "gracePeriod", flag: "grace-period", default: "20 s", reload: .applies,
        meaning: "Seconds running jobs get to finish at shutdown before they are cancelled, 0 to a year")
    /// ``DaemonConfiguration/cancellationTimeout``.
    public static let cancellationTimeout = DaemonSetting(
        "cancellationTimeout", \.cancellationTimeout, fileKey: "cancellationTimeout", default: "5 s", reload: .applies,
        meaning: "Seconds a cancelled job gets to stop (after the grace period, a timeout or a cancel) before the daemon gives up on it")
    /// ``DaemonConfiguration/flushBacklogLimit``.
    public static let flushBacklogLimit = DaemonSetting(
        "flushBacklogLimit", \.flushBacklogLimit, fileKey: "flushBacklogLimit", default: "100", reload: .applies,
        meaning: "While acknowledgements fail, claiming stops once this many finished jobs wait for one")
    /// ``DaemonConfiguration/flushFailureTimeout``.
    public static let flushFailureTimeout = DaemonSetting(
        "flushFailureTimeout", \.flushFailureTimeout, fileKey: "flushFailureTimeout", default: "300 s", reload: .applies,
        meaning: "Seconds acknowledgements may go on failing before the daemon stops, for its supervisor to act")
    /// ``RetryPolicy/maxAttempts`` of ``DaemonConfiguration/retry``.
    public static let maxAttempts = DaemonSetting(
        "retry.maxAttempts", \.retry.maxAttempts, fileKey: "maxAttempts", default: "3", reload: .applies,
        meaning: "Attempts a job gets, 1 to 1000; a job file's maxAttempts comes first")
    /// ``RetryPolicy/baseDelay`` of ``DaemonConfiguration/retry``.
    public static let baseDelay = DaemonSetting(
        "retry.baseDelay", \.retry.baseDelay, fileKey: "baseDelay", default: "1 s", reload: .applies,
        meaning: "Seconds of backoff before the first retry; a job file's baseDelay comes first")
    /// ``RetryPolicy/maxDelay`` of ``DaemonConfiguration/retry``.
    public static let maxDelay = DaemonSetting(
        "retry.maxDelay", \.retry.maxDelay, fileKey: "maxDelay", default: "300 s", reload: .applies,
        meaning: "The longest backoff between retries, in seconds")
    /// ``DaemonConfiguration/dependencyWaitTimeout``.
    public static let dependencyWaitTimeout = DaemonSetting(
        "dependencyWaitTimeout", \.dependencyWaitTimeout, fileKey: "dependencyWaitTimeout", default: "60 s", reload: .applies,
        meaning: "Seconds a job whose after list names an id never seen waits for that job before it fails")

    // MARK: Its watch over the spool

    /// ``DaemonConfiguration/rescanInterval``.
    public static let rescanInterval = DaemonSetting(
        "rescanInterval", \.rescanInterval, fileKey: "rescanInterval", default: "1 s", reload: .needsRestart,
        meaning: "Seconds between rescans of new/ (inotify is only a hint), and between ticks")
    /// ``DaemonConfiguration/usesInotify``.
    public static let inotify = DaemonSetting(
        "usesInotify", \.usesInotify, fileKey: "inotify", default: "on", reload: .needsRestart,
        meaning: "Whether to watch new/ with inotify, on top of the rescans")
    /// ``DaemonConfiguration/statusInterval``.
    public static let statusInterval = DaemonSetting(
        "statusInterval", \.statusInterval, fileKey: "statusInterval", default: "1 s", reload: .needsRestart,
        meaning: "Seconds between rewrites of status.json, which every flush also writes")
    /// ``DaemonConfiguration/spoolDurability``: set from Swift only.
    public static let spoolDurability = DaemonSetting(
        "spoolDurability", \.spoolDurability, fileKey: nil, default: "fsync", reload: .needsRestart,
        meaning: "What the spool fsyncs: files before their rename and directories after (fsync), or nothing (none)")
    /// ``DaemonConfiguration/maxInterruptions``.
    public static let poisonThreshold = DaemonSetting(
        "maxInterruptions", \.maxInterruptions, fileKey: "poisonThreshold", default: "\(SpoolDirectory.defaultMaxInterruptions)",
        reload: .needsRestart, meaning: "Daemon stops (crashes) during a job after which it fails rather than runs again, 1 to 1000")

    // MARK: Its logs and traces

    /// ``DaemonConfiguration/logLevel``.
    public static let logLevel = DaemonSetting(
        "logLevel", \.logLevel, fileKey: "logLevel", flag: "log-level", default: "info", reload: .applies,
        meaning: "The level of the daemon's and the jobs' log lines: trace, debug, info, notice, warning, error or critical")

    // MARK: Its jobs' bounds

    /// ``DaemonConfiguration/keepDone``.
    public static let keepDone = DaemonSetting(
        "keepDone", \.keepDone, fileKey: "keepDone", flag: "keep-done", default: "forever", reload: .applies,
        meaning: "How long done jobs and their reports are kept; jobs that others wait for are kept")
    /// ``DaemonConfiguration/timeout``.
    public static let timeout = DaemonSetting(
        "timeout", \.timeout, fileKey: "timeout", flag: "timeout", default: "no limit", reload: .applies,
        meaning: "How long one attempt of a job may run; a job file's timeout and timeoutByKind come first")
    /// ``DaemonConfiguration/timeoutByKind``.
    public static let timeoutByKind = DaemonSetting(
        "timeoutByKind", \.timeoutByKind, fileKey: "timeoutByKind", default: "none", reload: .applies,
        meaning: "Seconds one attempt may run, by job kind")
    /// ``DaemonConfiguration/queues``.
    public static let queues = DaemonSetting(
        "queues", \.queues, fileKey: "queues", default: "none", reload: .needsRestart,
        meaning: "Named queues, each with the job kinds it runs and how many at once")
    /// ``DaemonConfiguration/cron``.
    public static let cron = DaemonSetting(
        "cron", \.cron, fileKey: "cron", default: "none", reload: .applies,
        meaning: "Recurring jobs, each a name, a cron schedule and the job file it enqueues")
    /// ``DaemonConfiguration/allowedHosts``.
    public static let allowedHosts = DaemonSetting(
        "allowedHosts", \.allowedHosts, fileKey: "allowedHosts", flag: "allowed-host", default: "none", reload: .applies,
        meaning: "Host names fetch-buoy jobs may fetch from, exactly (www.ndbc.noaa.gov)")
    /// ``DaemonConfiguration/otelEndpoint``.
    public static let otelEndpoint = DaemonSetting(
        "otelEndpoint", \.otelEndpoint, fileKey: "otelEndpoint", flag: "otel-endpoint", default: "off", reload: .needsRestart,
        meaning: "Export a span per job attempt and per flush over OTLP/HTTP to this collector (http://127.0.0.1:4318)")
    /// ``DaemonConfiguration/limits``.
    public static let limits = DaemonSetting(
        "limits", \.limits, fileKey: "limits", flag: "limit", default: "none", reload: .needsRestart,
        meaning: "Limits on a kind's or a named queue's jobs: how many run at once, how many are claimed in a period")
}
