import Dispatch
import Logging
import Synchronization

/// Flushes a container in the background once its main context holds more than a set number of
/// unsaved rows.
///
/// A large import then reaches the disk while it runs, on the writer's queue, instead of all at
/// the next flush: the two cores share the work, the main context's memory stays bounded, and
/// the checks that look at pending rows have fewer to look at. Explicit flushes (the daemon's
/// interval, SIGUSR1, shutdown) are unchanged: a flush carries whatever the main context holds,
/// so a job is still acknowledged only after a flush that began after its save.
final class AutomaticFlush: Sendable {
    /// Rows in the main context past which a child's save starts a flush; 0 turns it off.
    var rowLimit: Int {
        get { limit.load(ordering: .relaxed) }
        set { limit.store(max(0, newValue), ordering: .relaxed) }
    }
    private let limit: Atomic<Int>
    private let isFlushing = Atomic<Bool>(false)
    private let logger: Logger

    init(rowLimit: Int, logger: Logger) {
        self.limit = Atomic(rowLimit)
        self.logger = logger
    }

    /// Called on the main context's queue after it accepted a child's save. Starts at most one
    /// background flush at a time; `flush` returns nil when the container is gone.
    func mainContextHolds(_ rows: Int, flush: @escaping @Sendable () throws -> FlushReport?) {
        let limit = rowLimit
        guard limit > 0, rows > limit else { return }
        guard isFlushing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { isFlushing.store(false, ordering: .releasing) }
            do {
                if let report = try flush() {
                    logger.debug(
                        "automatic flush", metadata: ["rows": "\(report.rowsWritten)", "duration": "\(report.duration)"])
                }
            } catch {
                // The rows stay where they are; the next flush (automatic or not) tries again and
                // reports to its caller.
                logger.warning("automatic flush failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
