import Foundation
import LineupStore
import Synchronization
import LineupLocking

/// One heartbeat: when `perform` was called, and how long the block waited for the main
/// context's queue before it started.
struct HeartbeatSample: Sendable {
    let scheduledAt: UInt64
    let latency: UInt64
}

/// Calls `perform { }` on a context every `interval` from a thread of its own and records, for
/// each call, the time from the call to the block starting: the context's queue latency.
///
/// The clock starts when `perform` is called, not at the tick's deadline, so a late wake-up of
/// the heartbeat thread (timer slack, a busy CPU) does not count against the context. Beats are
/// scheduled whether or not earlier ones have run, as a daemon's requests would be: while the
/// queue is blocked, each waiting beat measures its own wait.
final class Heartbeat: Sendable {
    private let context: ManagedObjectContext
    private let interval: UInt64
    private let stopRequested = Atomic<Bool>(false)
    private let samples = Locked<[HeartbeatSample]>([])
    private let threadFinished = DispatchSemaphore(value: 0)

    init(context: ManagedObjectContext, intervalNanoseconds: UInt64 = 1_000_000) {
        self.context = context
        self.interval = intervalNanoseconds
        samples.withLock { $0.reserveCapacity(1 << 16) }
    }

    func start() {
        let thread = Thread { [self] in
            beat()
            threadFinished.signal()
        }
        thread.name = "lineup-bench.heartbeat"
        thread.start()
    }

    /// Stops the thread, lets the beats already scheduled run, and returns every sample in the
    /// order the beats ran.
    func stop() -> [HeartbeatSample] {
        stopRequested.store(true, ordering: .relaxed)
        threadFinished.wait()
        context.performAndWait {}
        return samples.withLock { $0 }
    }

    private func beat() {
        var deadline = MonotonicClock.now() + interval
        while !stopRequested.load(ordering: .relaxed) {
            let now = MonotonicClock.now()
            if deadline > now {
                var pause = timespec(tv_sec: Int(deadline - now) / 1_000_000_000, tv_nsec: Int(deadline - now) % 1_000_000_000)
                nanosleep(&pause, nil)
            }
            let scheduledAt = MonotonicClock.now()
            context.perform { [self] in
                let latency = MonotonicClock.now() - scheduledAt
                samples.withLock { $0.append(HeartbeatSample(scheduledAt: scheduledAt, latency: latency)) }
            }
            // Ticks missed by a late wake-up are skipped, not fired in a burst.
            deadline += interval
            let after = MonotonicClock.now()
            if deadline <= after { deadline = after + interval }
        }
    }
}

extension HeartbeatSample {
    /// The latencies of the beats sent while one of `intervals` was under way (e.g. while the
    /// writer was saving to disk).
    static func latencies(of samples: [HeartbeatSample], sentDuring intervals: [ClosedRange<UInt64>]) -> [UInt64] {
        let sortedIntervals = intervals.sorted { $0.lowerBound < $1.lowerBound }
        var result: [UInt64] = []
        var index = 0
        for sample in samples.sorted(by: { $0.scheduledAt < $1.scheduledAt }) {
            while index < sortedIntervals.count && sortedIntervals[index].upperBound < sample.scheduledAt { index += 1 }
            if index < sortedIntervals.count && sortedIntervals[index].contains(sample.scheduledAt) {
                result.append(sample.latency)
            }
        }
        return result
    }
}
