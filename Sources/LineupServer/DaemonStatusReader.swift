import Foundation
import LineupJobs

/// The status of the daemon that runs in this process, for the dashboard: asked of the daemon
/// (what `status.json` would say now), not read from the file it writes.
///
/// Before the daemon has started there is none (the page says so: no daemon status yet). Once
/// it has stopped, the status it wrote as it stopped (phase `stopped`), read once: a stopped
/// daemon never writes again.
actor DaemonStatusReader {
    private let daemon: JobDaemon
    private let spoolURL: URL
    /// The status file as the stopped daemon left it; nil until the daemon is seen stopped.
    private var statusAtStop: Result<DaemonStatus, any Error>?

    init(daemon: JobDaemon, spoolURL: URL) {
        self.daemon = daemon
        self.spoolURL = spoolURL
    }

    func current() async -> DaemonStatus? {
        if let status = await daemon.status() {
            return status
        }
        // The container is set as the daemon starts and kept after it stops: without one, the
        // daemon has not started yet.
        guard daemon.container != nil else { return nil }
        if statusAtStop == nil {
            statusAtStop = Result { try DaemonStatus(contentsOfSpoolAt: spoolURL) }
        }
        return try? statusAtStop?.get()
    }
}
