import Foundation
import Synchronization

/// A thread that spins on one core until stopped: a benchmark run beside it shows how Lineup
/// fares on a server whose second core is not free (issue 10's `--busy-core`).
final class BusyCore: Sendable {
    /// The CPU clock of the spinning thread while it spins. ``ProcessCPU`` leaves that thread's
    /// time out, so that a busy-core run's CPU figures are those of Lineup and of the baseline.
    static let spinningThreadClock = Mutex<clockid_t?>(nil)

    private let isRunning = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)

    init() {
        let spinning = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            var clock = clockid_t()
            if pthread_getcpuclockid(pthread_self(), &clock) == 0 {
                Self.spinningThreadClock.withLock { $0 = clock }
            }
            spinning.signal()
            var counter: UInt64 = 0
            while isRunning.load(ordering: .relaxed) {
                counter &+= 1
            }
            // Keeps the loop from being optimized away.
            if counter == 0 { print("", terminator: "") }
            Self.spinningThreadClock.withLock { $0 = nil }
            stopped.signal()
        }
        thread.name = "lineup-bench.busy-core"
        thread.start()
        spinning.wait()
    }

    func stop() {
        isRunning.store(false, ordering: .relaxed)
        stopped.wait()
    }
}
