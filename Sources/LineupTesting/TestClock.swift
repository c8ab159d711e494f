public import Foundation
import Dispatch
package import LineupJobs
import LineupLocking
import LineupSpool

/// The time of a test's jobs, which only the test moves: when a `notBefore` has come, when a
/// retry's backoff is over, when a cron schedule fires, when an attempt's time limit is up.
///
/// ```swift
/// try await tester.advance(by: .seconds(90))   // through JobTester, so that cron fires too
/// ```
///
/// It starts at the time it is made. Timers scheduled on it run when ``advance(by:)`` moves it
/// past their deadline, in deadline order, on the queue they named; never otherwise.
public final class TestClock: Sendable {
    private struct Timer {
        let deadline: Date
        let sequence: Int
        let queue: DispatchQueue
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var timers: [Timer] = []
        var nextSequence = 0
    }

    private let state: Locked<State>

    /// Makes a clock that reads `now` until it is advanced; by default the current time, rounded
    /// down to a whole second, since the spool keeps a job's `notBefore` in whole seconds
    /// (rounded up): a job scheduled an hour from `now` is then due after exactly an hour.
    public init(now: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        state = Locked(State(now: now))
    }

    /// The clock's time.
    public var now: Date {
        state.withLock { $0.now }
    }

    /// Moves the clock forward by `duration` and runs the timers whose deadline it passed, each
    /// handed to its queue in deadline order (the order they were scheduled in for equal
    /// deadlines).
    ///
    /// - Precondition: `duration` is not negative: a clock does not go back.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a TestClock does not go back")
        let due = state.withLock { state in
            state.now = state.now.addingTimeInterval(duration.timeInterval)
            let now = state.now
            let due = state.timers.filter { $0.deadline <= now }
            state.timers.removeAll { $0.deadline <= now }
            return due.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
        }
        for timer in due {
            timer.queue.async(execute: timer.action)
        }
    }

    /// The clock as the daemon takes it.
    package var daemonClock: DaemonClock {
        DaemonClock(now: { [self] in now }, schedule: { [self] delay, queue, action in schedule(after: delay, on: queue, action) })
    }

    private func schedule(after delay: Duration, on queue: DispatchQueue, _ action: @escaping @Sendable () -> Void) {
        let runsNow = state.withLock { state in
            guard delay > .zero else { return true }
            state.timers.append(
                Timer(deadline: state.now.addingTimeInterval(delay.timeInterval), sequence: state.nextSequence, queue: queue, action: action))
            state.nextSequence += 1
            return false
        }
        if runsNow {
            queue.async(execute: action)
        }
    }
}
