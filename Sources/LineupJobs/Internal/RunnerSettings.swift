import Logging

/// The runner's settings that may change while it runs (``JobDaemon/reload()``).
struct RunnerSettings: Sendable {
    var retry: RetryPolicy
    var claimWindow: Int
    var maxConcurrentJobs: Int
    var flushInterval: Duration
    var dependencyWaitTimeout: Duration
    var flushBacklogLimit: Int
    var flushFailureTimeout: Duration
    var logger: Logger

    init(_ configuration: DaemonConfiguration, logger: Logger) {
        self.retry = configuration.retry
        self.claimWindow = configuration.effectiveClaimWindow
        self.maxConcurrentJobs = configuration.maxConcurrentJobs
        self.flushInterval = configuration.flushInterval
        self.dependencyWaitTimeout = configuration.dependencyWaitTimeout
        self.flushBacklogLimit = configuration.flushBacklogLimit
        self.flushFailureTimeout = configuration.flushFailureTimeout
        self.logger = logger
    }
}
