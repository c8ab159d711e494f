import LineupLocking
import Synchronization

/// Tells whether the writer is writing a transaction, and lets a thread wait for that write to
/// end. Used for backpressure: a child context's save waits for the write under way when the
/// contexts above it already hold many unsaved rows (see `ManagedObjectContext.save()`), so that an
/// import faster than the disk keeps a bounded number of rows in memory.
///
/// One gate serves a whole stack: the writer context passes through it around each write to the
/// store, the contexts below wait at it. The wait is `Locked`'s: a waiter sleeps until the end of
/// a write changes the counts.
final class WriteGate: Sendable {
    /// A child context's save waits for the write under way when the contexts above it hold more
    /// unsaved rows than this. Rows cost a few hundred bytes each, so this bounds an import's
    /// memory to some tens of megabytes whatever the relative speeds of the import and the disk.
    let backlogLimit = Atomic<Int>(WriteGate.defaultBacklogLimit)
    static let defaultBacklogLimit = 100_000

    private struct Counts {
        var writes = 0
        /// The writes that ended, so that a waiter wakes for the end of the write it saw.
        var ended = 0
        var waiters = 0
    }

    private let counts = Locked(Counts())

    var isWriting: Bool {
        counts.withLock { $0.writes > 0 }
    }

    /// The threads waiting in ``waitForWriteUnderWay()`` now.
    var waitingCount: Int {
        counts.withLock { $0.waiters }
    }

    func beginWrite() {
        counts.withLock { $0.writes += 1 }
    }

    func endWrite() {
        counts.withLock {
            $0.writes -= 1
            $0.ended += 1
        }
    }

    /// Returns at once when no write is under way; otherwise when the next write ends. A write
    /// never waits for anything but the store, so this always returns.
    func waitForWriteUnderWay() {
        let awaited: Int? = counts.withLock { counts in
            guard counts.writes > 0 else { return nil }
            counts.waiters += 1
            return counts.ended + 1
        }
        guard let awaited else { return }
        counts.withLock(when: { $0.ended >= awaited }) { $0.waiters -= 1 }
    }
}
