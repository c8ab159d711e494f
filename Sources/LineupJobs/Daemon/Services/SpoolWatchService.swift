import LineupSpool
import ServiceLifecycle

/// Hints the runner (or the database intake) when `new/` may hold jobs, from start until the
/// daemon stops claiming: a ``SpoolWatcher`` (inotify and periodic rescans) for the service's
/// life.
struct SpoolWatchService: Service, CustomStringConvertible {
    let spool: SpoolDirectory
    let rescanInterval: Duration
    let usesInotify: Bool
    let hint: @Sendable () -> Void

    var description: String { "spool watcher" }

    func run() async {
        let watcher = SpoolWatcher(spool: spool, rescanInterval: rescanInterval, useInotify: usesInotify, hint: hint)
        // Returns on graceful shutdown, and throws on cancellation: the watcher stops either way.
        try? await gracefulShutdown()
        watcher.stop()
    }
}
