import Dispatch
import LineupLocking
public import Logging

/// Flushes a container on a queue of its own whenever its main context holds more than a set
/// number of unsaved rows, for a program that runs tasks on the stack without the daemon
/// (`lineup run`): a large import then reaches the disk while it runs, and the main context's
/// memory stays bounded, as it does in the daemon (whose runner flushes through its own
/// committer instead, with `flushRowLimit`).
///
/// The container does not flush by itself; this is an observer of the main context's child
/// saves (``ManagedObjectContext/observeChildSaves(_:)``) that one creates and keeps:
///
/// ```swift
/// let flushing = BackgroundFlush(container: container, rowLimit: 25_000, logger: logger)
/// task.start()                 // saves chunks into main; flushes follow in the background
/// try flushing.finish()        // waits for them, and throws if one failed
/// try container.flush()        // the rest
/// ```
///
/// One flush at a time: saves that come while a flush is asked for ask for none more, and those
/// that come while one runs ask for one more after it.
public final class BackgroundFlush: Sendable {
    private struct State {
        var isPending = false
        var failure: (any Error)?
    }

    /// Rows in the main context past which a child's save starts a flush.
    public let rowLimit: Int
    private let container: PersistentContainer
    private let logger: Logger
    private let queue = DispatchQueue(label: "lineup.background-flush")
    private let state = Locked(State())
    private let observation = Locked<SaveObservation?>(nil)

    /// Starts watching `container`'s main context: from now on, a child's save that leaves it
    /// holding more than `rowLimit` (at least 1) unsaved rows asks for a flush. Keep the value
    /// until ``finish()``.
    public init(container: PersistentContainer, rowLimit: Int, logger: Logger) {
        precondition(rowLimit > 0, "rowLimit must be positive")
        self.container = container
        self.rowLimit = rowLimit
        self.logger = logger
        let observation = container.mainContext.observeChildSaves { [weak self] saved in
            self?.mainContextHolds(saved.pendingRowCount)
        }
        self.observation.withLock { $0 = observation }
    }

    /// Stops watching, waits for a flush under way, and throws the error of the first flush
    /// that failed, if one did (its rows stay in the stack for the next flush).
    public func finish() throws {
        observation.withLock { $0 = nil }
        queue.sync {}
        if let failure = state.withLock({ $0.failure }) {
            throw failure
        }
    }

    private func mainContextHolds(_ rows: Int) {
        guard rows > rowLimit else { return }
        let asks = state.withLock { state in
            defer { state.isPending = true }
            return !state.isPending
        }
        guard asks else { return }
        queue.async { [self] in
            state.withLock { $0.isPending = false }
            do {
                let report = try container.flush()
                logger.debug("background flush", metadata: ["rows": "\(report.rowsWritten)", "duration": "\(report.duration)"])
            } catch {
                logger.warning("background flush failed", metadata: ["error": "\(error)"])
                state.withLock { if $0.failure == nil { $0.failure = error } }
            }
        }
    }
}
