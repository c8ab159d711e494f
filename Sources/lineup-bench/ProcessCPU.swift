import Foundation
import Synchronization

/// CPU time used by this process (all threads, user + system, but for a ``BusyCore``'s spinning
/// thread), and the machine's load: the figures that tell whether a wall-clock result was slowed
/// by other work on the machine.
enum ProcessCPU {
    #if os(Linux)
    // Glibc imports RUSAGE_SELF as an enum case, while getrusage takes an Int32.
    private static let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    private static let RUSAGE_SELF_WHO = RUSAGE_SELF
    #endif

    static func usedNanoseconds() -> UInt64 {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF_WHO, &usage) == 0 else { return 0 }
        func nanoseconds(_ time: timeval) -> UInt64 {
            UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000
        }
        let process = nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
        return process - min(process, spinningThreadNanoseconds())
    }

    private static func spinningThreadNanoseconds() -> UInt64 {
        guard let clock = BusyCore.spinningThreadClock.withLock({ $0 }) else { return 0 }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The 1-minute load average and the number of CPUs, e.g. "load 0.42 on 2 CPUs".
    static func loadDescription() -> String {
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
            let first = text.split(separator: " ").first
        else { return "\(cpus) CPUs" }
        return "load \(first) on \(cpus) CPUs"
    }
}
