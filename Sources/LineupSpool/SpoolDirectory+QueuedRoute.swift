import Foundation
import LineupLocking

/// What a claim's filter reads of a job file in `new/`: its kind and the queue it names, the
/// two that say which pauses and limits hold it back.
struct QueuedRoute: Sendable, Hashable {
    /// The file's `kind`; nil when it cannot be read or has none (the claim then fails it with
    /// the reason).
    var kind: String?
    /// The file's `queue`; nil when it names none.
    var queue: String?
}

extension SpoolDirectory {
    /// The kind and named queue of the job file `fileName` in `new/`, read once while it stays
    /// there (a file in `new/` never changes: producers rename complete files in).
    func queuedRoute(of fileName: String) -> QueuedRoute {
        if let known = queuedRoutes.withLock({ $0[fileName] }) { return known }
        let path = path(of: .queued) + "/" + fileName
        guard let (contents, size) = try? FileSystem.readFile(path, limit: Self.maximumJobFileSize),
            size <= Self.maximumJobFileSize
        else { return QueuedRoute() }
        let file = try? JobFile(data: contents)
        let route = QueuedRoute(kind: file?.kind, queue: file?.queue)
        queuedRoutes.withLock { routes in
            // Files claimed or gone are forgotten when the list grows past what `new/` could
            // plausibly hold of held-back jobs.
            if routes.count > 10_000 { routes.removeAll() }
            routes[fileName] = route
        }
        return route
    }
}
