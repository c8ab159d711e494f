import LineupSpool
import Logging

/// What the runner runs by: the daemon's configuration and logger, both replaced together by a
/// reload (``JobDaemon/reload()``). The runner reads every setting from the configuration as it
/// is, so a new setting needs no copy here. The named queues are read once, at start: changing
/// them needs a restart.
struct RunnerSettings: Sendable {
    var configuration: DaemonConfiguration
    var logger: Logger

    init(_ configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }
}

extension DaemonConfiguration {
    /// The time limit of one attempt of `file`'s job: the file's `timeout`, else its kind's,
    /// else the daemon's; nil for no limit.
    func timeLimit(for file: JobFile) -> Duration? {
        if let timeout = file.timeout {
            return timeout
        }
        return timeoutByKind[file.kind] ?? timeout
    }
}
