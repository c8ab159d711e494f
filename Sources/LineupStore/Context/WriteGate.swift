import Foundation
import Synchronization

/// Tells whether the writer is writing a transaction, and lets a thread wait for that write to
/// end. Used for backpressure: a child context's save waits for the write under way when the
/// contexts above it already hold many unsaved rows (see `ManagedObjectContext.save()`), so that an
/// import faster than the disk keeps a bounded number of rows in memory.
///
/// One gate serves a whole stack: the writer context passes through it around each write to the
/// store, the contexts below wait at it.
final class WriteGate: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `condition`'s lock, but for
    // `backlogLimit`, which is atomic.

    /// A child context's save waits for the write under way when the contexts above it hold more
    /// unsaved rows than this. Rows cost a few hundred bytes each, so this bounds an import's
    /// memory to some tens of megabytes whatever the relative speeds of the import and the disk.
    let backlogLimit = Atomic<Int>(WriteGate.defaultBacklogLimit)
    static let defaultBacklogLimit = 100_000

    private let condition = NSCondition()
    private var writes = 0
    /// Counts the writes that ended, so that a waiter wakes for the end of the write it saw.
    private var ended = 0
    private var waiters = 0

    var isWriting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return writes > 0
    }

    /// The threads waiting in ``waitForWriteUnderWay()`` now.
    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiters
    }

    func beginWrite() {
        condition.lock()
        writes += 1
        condition.unlock()
    }

    func endWrite() {
        condition.lock()
        writes -= 1
        ended += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Returns at once when no write is under way; otherwise when the next write ends. A write
    /// never waits for anything but the store, so this always returns.
    func waitForWriteUnderWay() {
        condition.lock()
        defer { condition.unlock() }
        guard writes > 0 else { return }
        let awaited = ended + 1
        waiters += 1
        while ended < awaited { condition.wait() }
        waiters -= 1
    }
}
