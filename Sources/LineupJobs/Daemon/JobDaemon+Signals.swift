import Logging
import UnixSignals

extension JobDaemon {
    /// SIGUSR1 flushes now; SIGHUP reloads the configuration. Ends when the calling task is
    /// cancelled.
    ///
    /// - Parameter signals: trapping SIGUSR1 and SIGHUP since before the daemon's start.
    func signalLoop(_ signals: UnixSignalsSequence) async {
        for await signal in signals {
            switch signal {
            case .sigusr1:
                logger.info("SIGUSR1: flushing")
                _ = try? await flush(reason: .signal)
            case .sighup:
                logger.info("SIGHUP: reloading the configuration")
                do {
                    try reload()
                } catch {
                    logger.error("reload failed; the settings in effect stay", metadata: ["error": "\(error)"])
                }
            default:
                break
            }
        }
    }
}
