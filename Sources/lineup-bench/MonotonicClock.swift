import Dispatch

/// Nanoseconds on the monotonic clock: cheap to read, immune to wall-clock changes, and plain
/// integers that cross threads and sort without ceremony.
enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    static func seconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1e9
    }

    static func milliseconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1e6
    }
}
