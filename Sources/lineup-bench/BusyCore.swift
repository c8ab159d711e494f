import Foundation
import Synchronization

/// A thread that spins on one core until stopped: a benchmark run beside it shows how Lineup
/// fares on a server whose second core is not free (issue 10's `--busy-core`).
final class BusyCore: Sendable {
    private let isRunning = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            var counter: UInt64 = 0
            while isRunning.load(ordering: .relaxed) {
                counter &+= 1
            }
            // Keeps the loop from being optimized away.
            if counter == 0 { print("", terminator: "") }
            stopped.signal()
        }
        thread.name = "lineup-bench.busy-core"
        thread.start()
    }

    func stop() {
        isRunning.store(false, ordering: .relaxed)
        stopped.wait()
    }
}
