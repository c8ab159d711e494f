import Dispatch
import Foundation
import LineupLocking
import Testing

/// `Locked`'s condition wait, with an explicit timeline of who waits on whom. No step sleeps:
/// each waits for an event of the other thread. A waiter's `isReady` runs under the lock, so the
/// test can only take the lock after a waiter that found its condition false went to sleep (the
/// condition variable's wait releases the mutex): that is what makes each step follow the one
/// before it.
@Suite struct LockedTests {
    @Test func aReadyConditionRunsTheBodyAtOnce() {
        let counter = Locked(3)
        let result = counter.withLock(when: { $0 == 3 }) { value in
            value += 1
            return value
        }
        #expect(result == 4)
        #expect(counter.withLock { $0 } == 4)
    }

    @Test func aWaiterSleepsThroughChangesThatDoNotReadyItAndWakesForTheOneThatDoes() {
        let counter = Locked(0)
        let evaluated = DispatchSemaphore(value: 0)
        let seen = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let value = counter.withLock(when: { value in
                evaluated.signal()
                return value >= 2
            }) { $0 }
            seen.withLock { $0 = value }
            done.signal()
        }
        // 1. The waiter found 0 and sleeps (this thread gets the lock only once it does).
        evaluated.wait()
        // 2. A change that does not ready it: it wakes, finds 1, and sleeps again.
        counter.withLock { $0 = 1 }
        evaluated.wait()
        #expect(seen.withLock { $0 } == nil)
        // 3. The change it waits for.
        counter.withLock { $0 = 2 }
        done.wait()
        #expect(seen.withLock { $0 } == 2)
    }

    @Test func oneChangeWakesEveryWaiter() {
        let waiters = 4
        let isOpen = Locked(false)
        let evaluated = DispatchSemaphore(value: 0)
        let passed = Locked(0)
        for _ in 0..<waiters {
            Thread.detachNewThread {
                var first = true
                isOpen.withLock(when: { open in
                    if first { first = false; evaluated.signal() }
                    return open
                }) { _ in }
                passed.withLock { $0 += 1 }
            }
        }
        // 1. Every waiter found the gate shut and sleeps.
        for _ in 0..<waiters { evaluated.wait() }
        // 2. One change opens it for all of them; this thread waits for them with the same wait.
        isOpen.withLock { $0 = true }
        passed.withLock(when: { $0 == waiters }) { _ in }
        #expect(passed.withLock { $0 } == waiters)
    }

    /// A waiter's own body changes the value: that wakes the next waiter, as any `withLock` does.
    @Test func aWaitersBodyWakesTheNextWaiter() {
        let turn = Locked(0)
        let evaluated = DispatchSemaphore(value: 0)
        for step in 1...2 {
            Thread.detachNewThread {
                var first = true
                turn.withLock(when: { value in
                    if first { first = false; evaluated.signal() }
                    return value == step
                }) { $0 = step + 1 }
            }
        }
        // 1. Both relay threads sleep; 2. the first is handed the turn, and hands it on.
        evaluated.wait()
        evaluated.wait()
        turn.withLock { $0 = 1 }
        let last = turn.withLock(when: { $0 == 3 }) { $0 }
        #expect(last == 3)
    }

    struct Refused: Error, Equatable {}

    @Test func anErrorLeavesTheLockFreeAndTheValueAsTheBodyLeftIt() {
        let counter = Locked(0)
        #expect(throws: Refused.self) {
            try counter.withLock(when: { $0 == 0 }) { (value: inout Int) throws(Refused) in
                value = 7
                throw Refused()
            }
        }
        #expect(throws: Refused.self) {
            try counter.withLock { (_: inout Int) throws(Refused) in throw Refused() }
        }
        #expect(counter.withLock { $0 } == 7)
    }
}
