package import Dispatch
package import Foundation

/// The time the runner's schedules go by: when a job's `notBefore` has come, when a retry's
/// backoff is over, when an attempt's time limit is up, how long a job waits for an unknown
/// `after` id. The system's clock in a daemon; a test's own in LineupTesting (`TestClock`), so
/// that a test moves time instead of sleeping.
///
/// What is not a job's schedule stays on the system's clock: the flush interval, the shutdown's
/// grace period, heartbeats.
package struct DaemonClock: Sendable {
    /// The time now.
    package var now: @Sendable () -> Date
    /// Runs `action` on `queue` once `delay` has passed on this clock.
    package var schedule: @Sendable (_ delay: Duration, _ queue: DispatchQueue, _ action: @escaping @Sendable () -> Void) -> Void

    package init(
        now: @escaping @Sendable () -> Date,
        schedule: @escaping @Sendable (_ delay: Duration, _ queue: DispatchQueue, _ action: @escaping @Sendable () -> Void) -> Void
    ) {
        self.now = now
        self.schedule = schedule
    }

    /// The system's clock: `Date()` and Dispatch's timers.
    package static let system = DaemonClock(
        now: { Date() },
        schedule: { delay, queue, action in queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: action) })
}
