import LineupSpool
import Logging

/// The runner's settings that may change while it runs (``JobDaemon/reload()``).
struct RunnerSettings: Sendable {
    var retry: RetryPolicy
    var claimWindow: Int
    var maxConcurrentJobs: Int
    var flushInterval: Duration
    var flushesWhenIdle: Bool
    var flushRowLimit: Int
    var flushJobLimit: Int
    var dependencyWaitTimeout: Duration
    var flushBacklogLimit: Int
    var flushFailureTimeout: Duration
    /// How long a cancelled task may take to stop: at shutdown, and after a timeout.
    var cancellationTimeout: Duration
    var timeout: Duration?
    var timeoutByKind: [String: Duration]
    /// The named queues (fixed while the daemon runs: a change needs a restart).
    var queues: [String: DaemonConfiguration.JobQueue]
    /// ``DaemonConfiguration/totalConcurrency``: the default queue's width and the named queues'.
    var totalConcurrency: Int
    var logger: Logger

    init(_ configuration: DaemonConfiguration, logger: Logger) {
        self.retry = configuration.retry
        self.claimWindow = configuration.effectiveClaimWindow
        self.maxConcurrentJobs = configuration.maxConcurrentJobs
        self.flushInterval = configuration.flushInterval
        self.flushesWhenIdle = configuration.flushesWhenIdle
        self.flushRowLimit = configuration.flushRowLimit
        self.flushJobLimit = configuration.flushJobLimit
        self.dependencyWaitTimeout = configuration.dependencyWaitTimeout
        self.flushBacklogLimit = configuration.flushBacklogLimit
        self.flushFailureTimeout = configuration.flushFailureTimeout
        self.cancellationTimeout = configuration.cancellationTimeout
        self.timeout = configuration.timeout
        self.timeoutByKind = configuration.timeoutByKind
        self.queues = configuration.queues
        self.totalConcurrency = configuration.totalConcurrency
        self.logger = logger
    }

    /// The time limit of one attempt of `file`'s job: the file's `timeout`, else its kind's,
    /// else the daemon's; nil for no limit.
    func timeout(for file: JobFile) -> Duration? {
        if let seconds = file.timeout {
            return .seconds(seconds)
        }
        return timeoutByKind[file.kind] ?? timeout
    }
}
