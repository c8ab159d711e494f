import Logging
import ServiceLifecycle
import UnixSignals

/// SIGUSR1 flushes now; SIGHUP reloads the configuration. (SIGTERM and SIGINT belong to the
/// `ServiceGroup` that runs the daemon: they stop it.)
struct SignalService: Service, CustomStringConvertible {
    let daemon: JobDaemon
    /// Trapping SIGUSR1 and SIGHUP since before the daemon's start: one that arrives while the
    /// store opens waits here, rather than killing the process (their default action).
    let signals: UnixSignalsSequence

    var description: String { "signal handler" }

    func run() async {
        for await signal in signals.cancelOnGracefulShutdown() {
            switch signal {
            case .sigusr1:
                daemon.logger.info("SIGUSR1: flushing")
                _ = try? await daemon.flush(reason: .signal)
            case .sighup:
                daemon.logger.info("SIGHUP: reloading the configuration")
                do {
                    try daemon.reload()
                } catch {
                    daemon.logger.error("reload failed; the settings in effect stay", metadata: ["error": "\(error)"])
                }
            default:
                break
            }
        }
    }
}
