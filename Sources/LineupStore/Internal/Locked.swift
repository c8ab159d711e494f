import Foundation

/// A value behind a lock, for state shared between threads.
///
/// A pthread mutex (`NSLock`) rather than `Synchronization.Mutex`: a contended `Mutex` is handed
/// from thread to thread inside the Swift runtime library, where ThreadSanitizer cannot see it,
/// so a `swift test --sanitize=thread` run reports the accesses it protects as races whenever
/// two threads meet at the lock. ThreadSanitizer follows pthread mutexes.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read and written while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
