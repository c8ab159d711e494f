import Foundation

/// A gate a test opens to let a job go on; jobs wait on it in short slices so that they can
/// check for cancellation in between.
final class Latch: Sendable {
    private let condition = NSCondition()
    nonisolated(unsafe) private var isOpen = false
    // nonisolated(unsafe): `isOpen` is only read or written while `condition` is locked.

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to a minute for the latch to open; returns whether it is open. The wait blocks
    /// a thread of its own: neither the cooperative pool nor Dispatch's global queues, whose
    /// few threads also run the jobs and their completions.
    func opened() async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: self.wait(timeout: 60))
            }.start()
        }
    }

    /// Waits up to `timeout` for the latch to open; returns whether it is open.
    func wait(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !isOpen {
            _ = condition.wait(until: Date().addingTimeInterval(timeout))
        }
        return isOpen
    }
}
