public import Foundation
public import LineupSpool
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
/// ``logLevel``, ``flushInterval``, ``maxConcurrentJobs``, ``retry``, ``gracePeriod`` and
/// ``dependencyWaitTimeout`` can change while the daemon runs (``JobDaemon/reload()``); the
/// others need a restart.
public struct DaemonConfiguration: Sendable, Hashable {
    /// The SQLite store (its `-wal` and `-shm` files lie beside it).
    public var storeURL: URL
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
    /// How many claimed jobs may wait in the queue or run at once (jobs parked waiting for an
    /// unknown dependency, or for a retry, do not count). nil: 4 × ``maxConcurrentJobs``, at
    /// least 8.
    public var claimWindow: Int?
    /// The time between flushes. Default 5 s.
    public var flushInterval: Duration
    /// How long running jobs may take to finish at shutdown before they are cancelled.
    /// Default 20 s (below systemd's 90 s stop timeout).
    public var gracePeriod: Duration
    /// How long cancelled jobs may take to stop after the grace period before the daemon gives
    /// up on them: it then stops without closing the store, leaves their files in `active/`
    /// and ``JobDaemon/run()`` throws ``DaemonError/Code/jobsDidNotStop``. Default 5 s.
    public var cancellationTimeout: Duration
    /// While flushes fail (a full disk), claiming stops once this many finished jobs await a
    /// flush, so that the main context does not grow without bound; it resumes when a flush
    /// succeeds. Default 100.
    public var flushBacklogLimit: Int
    /// How long flushes may go on failing before the daemon stops and ``JobDaemon/run()``
    /// throws ``DaemonError/Code/flushesFailing``, so that its supervisor can act; every job not
    /// acknowledged is left for the next start. Default 300 s.
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

    public init(storeURL: URL, spoolURL: URL, inputDirectory: URL, outputDirectory: URL) {
        self.storeURL = storeURL
        self.spoolURL = spoolURL
        self.inputDirectory = inputDirectory
        self.outputDirectory = outputDirectory
        self.configurationFile = nil
        self.maxConcurrentJobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.claimWindow = nil
        self.flushInterval = .seconds(5)
        self.gracePeriod = .seconds(20)
        self.cancellationTimeout = .seconds(5)
        self.flushBacklogLimit = 100
        self.flushFailureTimeout = .seconds(300)
        self.retry = RetryPolicy()
        self.maxInterruptions = SpoolDirectory.defaultMaxInterruptions
        self.dependencyWaitTimeout = .seconds(60)
        self.rescanInterval = .seconds(1)
        self.usesInotify = true
        self.statusInterval = .seconds(1)
        self.spoolDurability = .fsync
        self.logLevel = .info
    }

    /// The claim window in effect.
    public var effectiveClaimWindow: Int {
        max(1, claimWindow ?? max(8, 4 * maxConcurrentJobs))
    }

    /// Where the daemon's jobs may read and write.
    public var pathPolicy: PathPolicy {
        PathPolicy(inputDirectory: inputDirectory, outputDirectory: outputDirectory)
    }

    /// This configuration with the settings that may change at run time taken from `other`.
    public func reloading(from other: DaemonConfiguration) -> DaemonConfiguration {
        var copy = self
        copy.logLevel = other.logLevel
        copy.flushInterval = other.flushInterval
        copy.maxConcurrentJobs = other.maxConcurrentJobs
        copy.claimWindow = other.claimWindow
        copy.retry = other.retry
        copy.gracePeriod = other.gracePeriod
        copy.cancellationTimeout = other.cancellationTimeout
        copy.dependencyWaitTimeout = other.dependencyWaitTimeout
        copy.flushBacklogLimit = other.flushBacklogLimit
        copy.flushFailureTimeout = other.flushFailureTimeout
        return copy
    }

    /// Checks the values that have no meaningful default behaviour when out of range.
    ///
    /// - Throws: ``DaemonError`` ``DaemonError/Code/invalidConfiguration`` naming the setting.
    public func validate() throws(DaemonError) {
        func invalid(_ message: String) -> DaemonError {
            DaemonError(.invalidConfiguration, path: configurationFile?.path, message)
        }
        guard maxConcurrentJobs >= 1 else { throw invalid("concurrency must be at least 1") }
        guard flushInterval > .zero else { throw invalid("flushInterval must be positive") }
        guard rescanInterval > .zero else { throw invalid("rescanInterval must be positive") }
        guard statusInterval > .zero else { throw invalid("statusInterval must be positive") }
        guard gracePeriod >= .zero, cancellationTimeout >= .zero, dependencyWaitTimeout >= .zero else {
            throw invalid("gracePeriod, cancellationTimeout and dependencyWaitTimeout must not be negative")
        }
        guard maxInterruptions >= 1 else { throw invalid("poisonThreshold must be at least 1") }
        if let claimWindow, claimWindow < 1 { throw invalid("claimWindow must be at least 1") }
        guard flushBacklogLimit >= 1 else { throw invalid("flushBacklogLimit must be at least 1") }
        guard flushFailureTimeout > .zero else { throw invalid("flushFailureTimeout must be positive") }
    }

    /// One line for the start-up log.
    public var summary: String {
        "store=\(storeURL.path) spool=\(spoolURL.path) input=\(inputDirectory.path) "
            + "output=\(outputDirectory.path) concurrency=\(maxConcurrentJobs) "
            + "claimWindow=\(effectiveClaimWindow) flushInterval=\(Self.seconds(flushInterval))s "
            + "gracePeriod=\(Self.seconds(gracePeriod))s maxAttempts=\(retry.maxAttempts) "
            + "baseDelay=\(Self.seconds(retry.baseDelay))s maxDelay=\(Self.seconds(retry.maxDelay))s "
            + "poisonThreshold=\(maxInterruptions) rescanInterval=\(Self.seconds(rescanInterval))s "
            + "inotify=\(usesInotify) flushBacklogLimit=\(flushBacklogLimit) "
            + "flushFailureTimeout=\(Self.seconds(flushFailureTimeout))s logLevel=\(logLevel)"
            + (configurationFile.map { " configurationFile=\($0.path)" } ?? "")
    }

    static func seconds(_ duration: Duration) -> Double {
        duration / .seconds(1)
    }
}
