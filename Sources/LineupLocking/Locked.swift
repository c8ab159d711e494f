import Foundation

/// A value behind a lock: the one lock type of Lineup's modules, for state shared between
/// threads.
///
/// A pthread mutex (`NSLock`) rather than `Synchronization.Mutex`: a contended `Mutex` is handed
/// from thread to thread inside the Swift runtime library, where ThreadSanitizer cannot see it,
/// so a `swift test --sanitize=thread` run reports the accesses it protects as races whenever
/// two threads meet at the lock. ThreadSanitizer follows pthread mutexes. A class, so that
/// escaping closures can capture it and structs holding it stay copyable.
///
/// Lock something: a `Locked<()>` used as a bare mutex is reported as a race by
/// ThreadSanitizer when two threads meet at it (the access to its empty value is seen outside
/// the mutex).
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read and written while `lock` is held, and it is
    // Sendable itself, so what `withLock` hands out can cross threads.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; keep it short, and never wait in it.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
