import Foundation

/// A value behind a lock: the one lock type of Lineup's modules, for state shared between
/// threads, and the one way a thread waits for another (``withLock(when:_:)``).
///
/// A pthread mutex and condition variable (`NSCondition`) rather than `Synchronization.Mutex`: a
/// contended `Mutex` is handed from thread to thread inside the Swift runtime library, where
/// ThreadSanitizer cannot see it, so a `swift test --sanitize=thread` run reports the accesses it
/// protects as races whenever two threads meet at the lock. ThreadSanitizer follows pthread
/// mutexes and condition variables. A class, so that escaping closures can capture it and structs
/// holding it stay copyable.
///
/// Lock something: a `Locked<()>` used as a bare mutex is reported as a race by
/// ThreadSanitizer when two threads meet at it (the access to its empty value is seen outside
/// the mutex).
///
/// Waiting is part of the lock, not a second mechanism beside it, because a wait is always for
/// a change of the locked value: a waiter sleeps on the condition variable until a `withLock` of
/// another thread may have made its condition true. Every `withLock` wakes the waiters when
/// there are any (a counter says so, so that a lock nobody waits on costs no more than a mutex),
/// and each waiter checks its own condition again, so no caller has to say what it changed.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` and `waiting` are only read and written while `condition`'s
    // mutex is held, and `value` is Sendable itself, so what `withLock` hands out can cross
    // threads.
    private let condition = NSCondition()
    private var value: Value
    /// The threads asleep in ``withLock(when:_:)``.
    private var waiting = 0

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; keep it short, and never wait in it.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer { unlockWakingWaiters() }
        return try body(&value)
    }

    /// Waits until `isReady` holds for the value, then runs `body` with it, holding the lock
    /// throughout (nothing changes the value between the check and `body`).
    ///
    /// The calling thread sleeps, without polling, until another thread's `withLock` makes
    /// `isReady` true: only wait for what some thread that does not wait for yours will do (an
    /// event loop answering, a write ending). `isReady` runs under the lock, each time the value
    /// may have changed: keep it a cheap test of the value. Like `body`, it must not take this
    /// lock again.
    package func withLock<Result, Failure: Error>(
        when isReady: (Value) -> Bool, _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer { unlockWakingWaiters() }
        if !isReady(value) {
            waiting += 1
            repeat { condition.wait() } while !isReady(value)
            waiting -= 1
        }
        return try body(&value)
    }

    /// Wakes every waiter, since this thread may have changed what any of them waits for, then
    /// unlocks. Only when there are waiters: the paths that lock most (the writer's gate, the
    /// runner's bookkeeping) rarely have one, and should pay for the mutex alone.
    private func unlockWakingWaiters() {
        if waiting > 0 { condition.broadcast() }
        condition.unlock()
    }
}
